import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/**
 * The schemas of this file, built on first use (sandboxSchemas): only the command table and the event and display
 * schemas validate against them, and a run that validates none (the CLI's text turn) never builds them.
 */
const buildSandboxSchemas = () => {
  /** Whether commands run in the OS sandbox, and if not, why and how to get it. */
  const SandboxStatus = z.object({
    /** The OS has a sandbox Deft can use (bubblewrap on Linux, Seatbelt on macOS). */
    available: z.boolean(),
    /** Commands run in it (available, and not turned off by settings or `--sandbox off`). */
    enabled: z.boolean(),
    kind: z.enum(['bubblewrap', 'seatbelt']).optional(),
    /** Why it is not in use, in one line. */
    reason: z.string().optional(),
    /** How to install it, when it is missing. */
    install: z.string().optional(),
    /** What differs from this machine's sandbox, in one line (a remote workspace's: where it runs, whose network). */
    note: z.string().optional(),
  });

  /** Something the OS sandbox refused a command: a write, a read or a connection, and how to allow it. */
  const SandboxBlock = z.object({
    kind: z.enum(['write', 'read', 'network']),
    /** The path, or `host:port`. */
    target: z.string(),
    /** How to allow it (the setting to change). */
    hint: z.string(),
  });

  /** A list entry of the sandbox settings: one line of printable text. */
  const Entry = z
    .string()
    .trim()
    .min(1, 'An entry cannot be empty.')
    .max(1_024)
    .regex(/^[^\p{Cc}]+$/u, 'An entry is one line of printable text.');
  const Entries = z.array(Entry).max(200);

  /** What one settings file says in its `"sandbox"` section, as written (paths unresolved). */
  const SandboxFileSettings = z.object({
    enabled: z.boolean().optional(),
    autoAllow: z.boolean().optional(),
    allowWrite: z.array(z.string()),
    denyRead: z.array(z.string()),
    allowedDomains: z.array(z.string()),
  });

  /** Settings → Sandbox: whether it is on here and why not, each file's section, and what is in force. */
  const SandboxSettingsView = z.object({
    status: SandboxStatus,
    /** The workspace is trusted: its own files may widen the sandbox, and Settings may write them. */
    trusted: z.boolean(),
    files: z.object({ user: z.string(), project: z.string(), local: z.string() }),
    sources: z.object({ user: SandboxFileSettings, project: SandboxFileSettings, local: SandboxFileSettings }),
    /** The merged settings in force (paths resolved). */
    effective: z.object({
      enabled: z.boolean(),
      autoAllow: z.boolean(),
      allowWrite: z.array(z.string()),
      denyRead: z.array(z.string()),
      allowedDomains: z.array(z.string()),
    }),
    problems: z.array(z.string()),
    /** What an untrusted workspace's files ask for that is not used. */
    ignored: z.array(z.string()),
  });

  /** Change one file's `"sandbox"` section: the keys given replace what the file has, the rest stays. */
  const SandboxSettingsInput = z
    .object({
      source: z.enum(['user', 'project', 'local']),
      enabled: z.boolean().optional(),
      autoAllow: z.boolean().optional(),
      allowWrite: Entries.optional(),
      denyRead: Entries.optional(),
      allowedDomains: Entries.optional(),
    })
    .strict();
  return { SandboxStatus, SandboxBlock, SandboxFileSettings, SandboxSettingsView, SandboxSettingsInput };
};
export type SandboxSchemas = ReturnType<typeof buildSandboxSchemas>;
export const sandboxSchemas: () => SandboxSchemas = builtOnce(buildSandboxSchemas);

// The types of the schemas above (each documented at its schema).
export type SandboxStatus = z.infer<SandboxSchemas['SandboxStatus']>;
export type SandboxBlock = z.infer<SandboxSchemas['SandboxBlock']>;
export type SandboxFileSettings = z.infer<SandboxSchemas['SandboxFileSettings']>;
export type SandboxSettingsView = z.infer<SandboxSchemas['SandboxSettingsView']>;
export type SandboxSettingsInput = z.infer<SandboxSchemas['SandboxSettingsInput']>;
