import type { ErrorInfo, Usage } from '#protocol';
import { type RetryPolicy, stepWithRetry } from '#infra/providers/retry';
import type { ChatProvider, ModelMessage, ToolSchema } from '#contract/model';
import { repairContext } from '#infra/sessions/repair';
import instruction from './compaction-instruction.md?raw';

/** The compaction call is retried at most this many times in all (transient errors only). */
export const MAX_COMPACTION_ATTEMPTS = 5;

export interface HandoffRequest {
  provider: ChatProvider;
  /** The same system prompt and tools as the turn's steps, so the provider's prompt cache still applies. */
  system: string;
  tools: readonly ToolSchema[];
  context: readonly ModelMessage[];
  /** What the user asked the note to focus on (/compact <instructions>). */
  instructions?: string;
  signal: AbortSignal;
  retry: RetryPolicy;
  random?: () => number;
}

export type HandoffResult = { kind: 'ok'; note: string; usage: Usage | null } | { kind: 'cancelled' } | { kind: 'failed'; error: ErrorInfo };

/** The message that asks the model for its handoff note. */
export function compactionPrompt(instructions?: string): string {
  const text = instruction.trim();
  return instructions?.trim() ? `${text}\n\nThe user asked this note to take particular care of:\n${instructions.trim()}` : text;
}

/** Ask the model for a first-person handoff note on the conversation so far. Never throws. */
export async function writeHandoffNote(request: HandoffRequest): Promise<HandoffResult> {
  const { provider, signal } = request;
  const messages: ModelMessage[] = [...repairContext(request.context), { role: 'user', content: compactionPrompt(request.instructions) }];
  const policy = { ...request.retry, maxAttempts: Math.min(request.retry.maxAttempts, MAX_COMPACTION_ATTEMPTS) };
  const step = await stepWithRetry(provider, () => ({ system: request.system, messages, tools: request.tools, signal }), {
    policy,
    signal,
    purpose: 'asking the model for a handoff note',
    ...(request.random ? { random: request.random } : {}),
  });
  if (step.kind === 'cancelled' || signal.aborted) return { kind: 'cancelled' };
  if (step.kind === 'failed') return step;
  const result = step.result;
  const note = result.text.trim();
  if (!note) {
    const what = result.toolCalls.length ? 'with tool calls instead of a handoff note' : 'with an empty handoff note';
    return { kind: 'failed', error: { code: 'internal', message: `The model answered ${what}. The conversation is unchanged; try /compact again.` } };
  }
  const cut = result.finishReason === 'max_tokens' ? "\n\n[This note was cut at the model's output limit.]" : '';
  return { kind: 'ok', note: note + cut, usage: result.usage };
}
