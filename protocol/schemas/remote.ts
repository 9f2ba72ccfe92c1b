import { z } from 'zod';

/** A remote workspace's connection: up, being reopened after a drop (calls wait), or gone. */
export const ConnectionState = z.enum(['connected', 'reconnecting', 'lost']);
export type ConnectionState = z.infer<typeof ConnectionState>;

/** Where a remote workspace is and how its connection is. */
export const RemoteConnection = z.object({
  /** `user@host` (with `:port` when not 22). */
  label: z.string(),
  state: ConnectionState,
  /** Why it dropped or was given up on, in one line. */
  detail: z.string().optional(),
});
export type RemoteConnection = z.infer<typeof RemoteConnection>;
