import { z } from 'zod';

/** How hard the model thinks: OpenAI's reasoning_effort (max: xhigh), Anthropic's thinking budget. */
export const Effort = z.enum(['low', 'medium', 'high', 'max']);
export type Effort = z.infer<typeof Effort>;
/** An effort setting: a level, or `off` (nothing is sent; the model's own default). */
export const EffortSetting = z.enum(['off', 'low', 'medium', 'high', 'max']);
export type EffortSetting = z.infer<typeof EffortSetting>;

/** A session as listed in the sidebar. */
export const SessionSummary = z.object({
  id: z.string(),
  title: z.string(),
  workspace: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  turns: z.number().int(),
  running: z.boolean(),
  /** The model this session's next turns use, when the user picked one for it (else the provider's). */
  model: z.string().optional(),
  /** The effort this session's turns ask for, when the user chose one for it (else the settings' default). */
  effort: EffortSetting.optional(),
  /** Approvals and questions waiting for the user (listSessions only, for sessions not open in this window). */
  waiting: z.array(z.object({ id: z.string(), turnId: z.string() })).optional(),
  /** The session this one was forked from (its id and title then) and the prompt it was forked after. */
  forkedFrom: z.object({ sessionId: z.string(), atPrompt: z.number().int(), title: z.string() }).optional(),
  /** The Deft worktree the session runs in (its workspace): its name, branch, base branch and main checkout. */
  worktree: z.object({ name: z.string(), branch: z.string(), baseBranch: z.string().nullable(), repoRoot: z.string() }).optional(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** A file attached to a prompt (saved under the session directory): an image the model looks at, or any other file it reads. */
export const Attachment = z.object({
  kind: z.enum(['image', 'file']),
  path: z.string(),
  name: z.string(),
  mimeType: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

/** Largest image a UI may attach (bytes, before base64). */
export { MAX_ATTACHMENT_BYTES } from '../helpers/limits';

/** Token counts reported by the provider. `inputTokens` includes the cached ones. */
export const Usage = z.object({
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** Input tokens read from the provider's prompt cache (where it reports them). */
  cachedTokens: z.number().int().optional(),
  /** Input tokens written to the prompt cache (Anthropic). */
  cacheWriteTokens: z.number().int().optional(),
  reasoningTokens: z.number().int().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Why a turn stopped. */
export const StopReason = z.enum(['end_turn', 'cancelled', 'max_steps', 'max_tokens', 'filtered', 'error']);
export type StopReason = z.infer<typeof StopReason>;

/** Why a model step stopped, normalised across providers. */
export const FinishReason = z.enum(['end_turn', 'tool_use', 'max_tokens', 'filtered', 'other']);
export type FinishReason = z.infer<typeof FinishReason>;

/** Machine-readable error codes carried by error events and failed commands. */
export const ErrorCode = z.enum([
  'invalid_request',
  'not_found',
  'busy',
  'unsupported',
  'not_configured',
  'provider_auth',
  'provider_not_found',
  'provider_bad_request',
  'provider_rate_limit',
  'provider_quota',
  'provider_server',
  'provider_unreachable',
  'provider_timeout',
  'provider_stream_broken',
  'session_log_corrupt',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorInfo = z.object({ code: ErrorCode, message: z.string() });
export type ErrorInfo = z.infer<typeof ErrorInfo>;

/** A session found by searchSessions: where the query matched, with a snippet of the text around it. */
export const SessionSearchHit = z.object({
  sessionId: z.string(),
  title: z.string(),
  updatedAt: z.number(),
  matchedIn: z.enum(['title', 'text']),
  snippet: z.string().optional(),
});
export type SessionSearchHit = z.infer<typeof SessionSearchHit>;

/** The formats a session can be exported in: readable Markdown, or the raw log (JSON Lines). */
export const ExportFormat = z.enum(['markdown', 'jsonl']);
export type ExportFormat = z.infer<typeof ExportFormat>;

/** Where Deft keeps its data and how much disk it uses. */
export const DataInfo = z.object({
  home: z.string(),
  /** This workspace's sessions folder. */
  sessionsDir: z.string(),
  sessionCount: z.number().int(),
  /** Bytes used by this workspace's sessions, and by every workspace's. */
  workspaceBytes: z.number(),
  allSessionsBytes: z.number(),
  /** The walk stopped early (very many files): the figures are at least this much. */
  partial: z.boolean(),
});
export type DataInfo = z.infer<typeof DataInfo>;
