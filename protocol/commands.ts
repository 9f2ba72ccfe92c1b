import { z } from 'zod';
import { SessionEvent } from './events';
import { Attachment, type ErrorInfo, MAX_ATTACHMENT_BYTES, SessionSummary } from './session';
import { ProviderSettingsInput, PublicSettings } from './settings';

function command<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

const Empty = z.object({}).strict();
const SessionRef = z.object({ sessionId: z.string().min(1) }).strict();

/** The workspace a window (or web host, or CLI run) is bound to. */
export const WorkspaceInfo = z.object({
  path: z.string(),
  name: z.string(),
  home: z.string(),
  host: z.enum(['electron', 'web', 'cli']),
});
export type WorkspaceInfo = z.infer<typeof WorkspaceInfo>;

/** Every command a UI can send, with its input and output schemas. */
export const commands = {
  /** Describe the workspace this window is bound to. */
  getWorkspace: command(Empty, WorkspaceInfo),
  /** Open a native folder picker and open the chosen folder in a new window (Electron only). */
  pickWorkspace: command(Empty, z.object({ path: z.string().nullable() })),
  /** Sessions of this workspace, most recently updated first. */
  listSessions: command(Empty, z.object({ sessions: z.array(SessionSummary) })),
  /** Start an empty session. */
  createSession: command(Empty, z.object({ session: SessionSummary })),
  /**
   * Load a session and return its events after `afterSeq` (all when omitted). `reset` tells the UI
   * to drop what it has and apply `events` from scratch. `problems` lists unreadable log lines.
   */
  openSession: command(
    SessionRef.extend({ afterSeq: z.number().int().nonnegative().optional() }).strict(),
    z.object({ session: SessionSummary, events: z.array(SessionEvent), reset: z.boolean(), problems: z.array(z.string()) }),
  ),
  /** Delete a session and its files. */
  deleteSession: command(SessionRef, z.object({ ok: z.literal(true) })),
  /** Start a turn with this prompt. Fails with code 'busy' while a turn runs. */
  sendPrompt: command(
    SessionRef.extend({ text: z.string().max(1_000_000), attachments: z.array(Attachment).max(20).optional() }).strict(),
    z.object({ turnId: z.string() }),
  ),
  /** Stop the running turn (stream and tools). */
  cancelTurn: command(SessionRef, z.object({ cancelled: z.boolean() })),
  /** Current settings (the API key itself is never returned). */
  getSettings: command(Empty, PublicSettings),
  /** Save provider settings. */
  setSettings: command(z.object({ provider: ProviderSettingsInput }).strict(), PublicSettings),
  /** Models offered by a provider (the saved one when `provider` is omitted). */
  listModels: command(z.object({ provider: ProviderSettingsInput.optional() }).strict(), z.object({ models: z.array(z.string()) })),
  // files: image attachments (dropped or pasted into the window)
  /** Save an image (base64 `data`) under the session's folder for the next prompt; PNG, JPEG, GIF or WebP. */
  saveAttachment: command(
    SessionRef.extend({ name: z.string().min(1).max(255), data: z.string().min(1).max(Math.ceil(MAX_ATTACHMENT_BYTES / 3) * 4) }).strict(),
    z.object({ attachment: Attachment }),
  ),
  /** A small preview of an image saved with saveAttachment (for thumbnails). */
  attachmentPreview: command(
    SessionRef.extend({ path: z.string().min(1).max(4096) }).strict(),
    z.object({ dataUrl: z.string(), width: z.number().int(), height: z.number().int() }),
  ),
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = z.input<Commands[K]['input']>;
export type CommandOutput<K extends CommandName> = z.output<Commands[K]['output']>;

/** Reply envelope for every command on every transport. */
export type CommandReply<K extends CommandName = CommandName> =
  | { ok: true; result: CommandOutput<K> }
  | { ok: false; error: ErrorInfo };

export function isCommandName(name: unknown): name is CommandName {
  return typeof name === 'string' && Object.hasOwn(commands, name);
}
