import { z } from 'zod';

/** A session as listed in the sidebar. */
export const SessionSummary = z.object({
  id: z.string(),
  title: z.string(),
  workspace: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  turns: z.number().int(),
  running: z.boolean(),
  /** Approvals and questions waiting for the user (listSessions only, for sessions not open in this window). */
  waiting: z.array(z.object({ id: z.string(), turnId: z.string() })).optional(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

/** A file attached to a prompt (saved under the session directory). */
export const Attachment = z.object({
  kind: z.literal('image'),
  path: z.string(),
  name: z.string(),
  mimeType: z.string(),
});
export type Attachment = z.infer<typeof Attachment>;

/** Largest image a UI may attach (bytes, before base64). */
export { MAX_ATTACHMENT_BYTES } from './limits';

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
