import { z } from 'zod';

/** Whether commands run in the OS sandbox, and if not, why and how to get it. */
export const SandboxStatus = z.object({
  /** The OS has a sandbox Deft can use (bubblewrap on Linux, Seatbelt on macOS). */
  available: z.boolean(),
  /** Commands run in it (available, and not turned off by settings or `--sandbox off`). */
  enabled: z.boolean(),
  kind: z.enum(['bubblewrap', 'seatbelt']).optional(),
  /** Why it is not in use, in one line. */
  reason: z.string().optional(),
  /** How to install it, when it is missing. */
  install: z.string().optional(),
});
export type SandboxStatus = z.infer<typeof SandboxStatus>;

/** Something the OS sandbox refused a command: a write, a read or a connection, and how to allow it. */
export const SandboxBlock = z.object({
  kind: z.enum(['write', 'read', 'network']),
  /** The path, or `host:port`. */
  target: z.string(),
  /** How to allow it (the setting to change). */
  hint: z.string(),
});
export type SandboxBlock = z.infer<typeof SandboxBlock>;
