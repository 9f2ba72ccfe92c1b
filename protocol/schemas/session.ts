import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/** Largest image a UI may attach (bytes, before base64). */
export { MAX_ATTACHMENT_BYTES } from '../helpers/limits';

/**
 * An effort setting: a level, or `off` (nothing is sent; the model's own default). Built on its own (a turn reads the
 * effort settings), the rest of the file with sessionSchemas.
 */
export const effortSettingSchema = builtOnce(() => z.enum(['off', 'low', 'medium', 'high', 'max']));

/** The schemas of this file, built on first use (sessionSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildSessionSchemas = () => {
  /** How hard the model thinks: OpenAI's reasoning_effort (max: xhigh), Anthropic's thinking budget. */
  const Effort = z.enum(['low', 'medium', 'high', 'max']);
  const EffortSetting = effortSettingSchema();

  /** A session as listed in the sidebar. */
  const SessionSummary = z.object({
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

  /** A file attached to a prompt (saved under the session directory): an image the model looks at, or any other file it reads. */
  const Attachment = z.object({
    kind: z.enum(['image', 'file']),
    path: z.string(),
    name: z.string(),
    mimeType: z.string(),
  });

  /** Token counts reported by the provider. `inputTokens` includes the cached ones. */
  const Usage = z.object({
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    /** Input tokens read from the provider's prompt cache (where it reports them). */
    cachedTokens: z.number().int().optional(),
    /** Input tokens written to the prompt cache (Anthropic). */
    cacheWriteTokens: z.number().int().optional(),
    reasoningTokens: z.number().int().optional(),
  });

  /** Why a turn stopped. */
  const StopReason = z.enum(['end_turn', 'cancelled', 'max_steps', 'max_tokens', 'filtered', 'error']);

  /** Why a model step stopped, normalised across providers. */
  const FinishReason = z.enum(['end_turn', 'tool_use', 'max_tokens', 'filtered', 'other']);

  /** Machine-readable error codes carried by error events and failed commands. */
  const ErrorCode = z.enum([
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

  const ErrorInfo = z.object({ code: ErrorCode, message: z.string() });

  /** A session found by searchSessions: where the query matched, with a snippet of the text around it. */
  const SessionSearchHit = z.object({
    sessionId: z.string(),
    title: z.string(),
    updatedAt: z.number(),
    matchedIn: z.enum(['title', 'text']),
    snippet: z.string().optional(),
  });

  /** The formats a session can be exported in: readable Markdown, or the raw log (JSON Lines). */
  const ExportFormat = z.enum(['markdown', 'jsonl']);

  /** Where Deft keeps its data and how much disk it uses. */
  const DataInfo = z.object({
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
  return { Effort, EffortSetting, SessionSummary, Attachment, Usage, StopReason, FinishReason, ErrorCode, ErrorInfo, SessionSearchHit, ExportFormat, DataInfo };
};

export type SessionSchemas = ReturnType<typeof buildSessionSchemas>;
export const sessionSchemas: () => SessionSchemas = builtOnce(buildSessionSchemas);

export type Effort = z.infer<SessionSchemas['Effort']>;
export type EffortSetting = z.infer<SessionSchemas['EffortSetting']>;
export type SessionSummary = z.infer<SessionSchemas['SessionSummary']>;
export type Attachment = z.infer<SessionSchemas['Attachment']>;
export type Usage = z.infer<SessionSchemas['Usage']>;
export type StopReason = z.infer<SessionSchemas['StopReason']>;
export type FinishReason = z.infer<SessionSchemas['FinishReason']>;
export type ErrorCode = z.infer<SessionSchemas['ErrorCode']>;
export type ErrorInfo = z.infer<SessionSchemas['ErrorInfo']>;
export type SessionSearchHit = z.infer<SessionSchemas['SessionSearchHit']>;
export type ExportFormat = z.infer<SessionSchemas['ExportFormat']>;
export type DataInfo = z.infer<SessionSchemas['DataInfo']>;
