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

// Open remote folder… (the window's dialog). The host keeps the connection; the window holds only its id.

/** A host as the user types it: a ~/.ssh/config alias or `[user@]host[:port]` (no path, no spaces, no controls). */
export const RemoteHostText = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(
    /^(?:[A-Za-z0-9_][A-Za-z0-9._-]*@)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9._-]*)(?::\d{1,5})?$/,
    'Type a host as user@host, host:port or a ~/.ssh/config alias.',
  );

/** An absolute path on the remote machine, one line. */
export const RemotePath = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^\/[^\p{Cc}]*$/u, 'A folder on the remote machine is an absolute path of printable characters.');

/** A ~/.ssh/config alias the dialog offers. */
export const RemoteHostEntry = z.object({ alias: z.string(), detail: z.string() });
export type RemoteHostEntry = z.infer<typeof RemoteHostEntry>;

/** A remote folder opened before (kept on this machine, newest first). */
export const RecentRemoteFolder = z.object({ host: z.string(), path: z.string(), label: z.string() });
export type RecentRemoteFolder = z.infer<typeof RecentRemoteFolder>;

const CONNECTION_ID = /^rc-[0-9a-f]{16}$/;
export const RemoteConnectionRef = z.object({ connection: z.string().regex(CONNECTION_ID) }).strict();

/** The window's name for one connect attempt, so that it can stop it while it is under way. */
export const RemoteAttemptId = z.string().regex(/^ra-[0-9a-f]{16}$/);

export const RemoteConnectInput = z
  .object({
    host: RemoteHostText,
    attempt: RemoteAttemptId.optional(),
    /** Host keys the user accepted in the dialog (the fingerprint they saw; `remember` adds it to ~/.ssh/known_hosts). */
    hostKeys: z
      .array(z.object({ host: z.string().max(300), fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/), remember: z.boolean() }).strict())
      .max(9)
      .optional(),
    /** Passphrases typed for keys, by the key file's path (kept in memory for this connection only). */
    passphrases: z
      .record(z.string().max(4096), z.string().max(1024))
      .refine((r) => Object.keys(r).length <= 16, 'At most 16 passphrases.')
      .optional(),
  })
  .strict();
export type RemoteConnectInput = z.infer<typeof RemoteConnectInput>;

/** Connected; or the host key is unknown (ask the user); or a key needs its passphrase. A changed key is an error. */
export const RemoteConnectResult = z.discriminatedUnion('status', [
  z.object({ status: z.literal('connected'), connection: z.string(), label: z.string(), home: z.string(), notes: z.array(z.string()) }),
  z.object({ status: z.literal('host-key'), host: z.string(), fingerprint: z.string() }),
  z.object({ status: z.literal('passphrase'), key: z.string(), wrong: z.boolean() }),
]);
export type RemoteConnectResult = z.infer<typeof RemoteConnectResult>;

/** One page of a remote folder's subfolders (sorted, capped: `more` says some were left out). */
export const RemoteListing = z.object({
  path: z.string(),
  parent: z.string().nullable(),
  folders: z.array(z.string()),
  /** Files and other entries, counted, not listed. */
  files: z.number().int().nonnegative(),
  more: z.boolean(),
});
export type RemoteListing = z.infer<typeof RemoteListing>;

/** Commands merged into the command table: built with it, on first use (commandSchemas). */
export function remoteCommands() {
  return {
    /** The ~/.ssh/config aliases and the remote folders opened before. */
    listRemoteHosts: { input: z.object({}).strict(), output: z.object({ hosts: z.array(RemoteHostEntry), recent: z.array(RecentRemoteFolder) }) },
    /** Connect to a host for browsing (host key and passphrase asked through the result). */
    connectRemoteHost: { input: RemoteConnectInput, output: RemoteConnectResult },
    /** The subfolders of a folder on a connected host. */
    listRemoteFolder: { input: RemoteConnectionRef.extend({ path: RemotePath }).strict(), output: RemoteListing },
    /** Open a folder of a connected host as the workspace: `here` (this page reloads on it) or in a new window. */
    openRemoteWorkspace: { input: RemoteConnectionRef.extend({ path: RemotePath }).strict(), output: z.object({ opened: z.enum(['here', 'window']) }) },
    /** Close a browsing connection (the dialog closed). */
    closeRemoteHost: { input: RemoteConnectionRef, output: z.object({}) },
    /** Stop a connect still under way (its `attempt`); nothing when it has ended. */
    cancelRemoteConnect: { input: z.object({ attempt: RemoteAttemptId }).strict(), output: z.object({}) },
  };
}
