import type { ErrorInfo, Usage } from '../../../../protocol';
import { type RetryPolicy, retryDecision, sleep } from '../../infra/providers/retry';
import { ProviderError } from '../../infra/providers/errors';
import type { ChatProvider, ModelMessage, ToolSchema } from '../../infra/providers/types';
import { repairContext } from '../../infra/sessions/repair';
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
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) return { kind: 'cancelled' };
    try {
      const result = await provider.step({ system: request.system, messages, tools: request.tools, signal }, { onText: () => {}, onThinking: () => {} });
      if (signal.aborted) return { kind: 'cancelled' };
      const note = result.text.trim();
      if (!note) {
        const what = result.toolCalls.length ? 'with tool calls instead of a handoff note' : 'with an empty handoff note';
        return { kind: 'failed', error: { code: 'internal', message: `The model answered ${what}. The conversation is unchanged; try /compact again.` } };
      }
      const cut = result.finishReason === 'max_tokens' ? "\n\n[This note was cut at the model's output limit.]" : '';
      return { kind: 'ok', note: note + cut, usage: result.usage };
    } catch (error) {
      if (signal.aborted) return { kind: 'cancelled' };
      if (!(error instanceof ProviderError)) {
        return { kind: 'failed', error: { code: 'internal', message: `Unexpected error while asking the model for a handoff note: ${(error as Error)?.message ?? String(error)}` } };
      }
      const decision = retryDecision(error, attempt, policy, request.random);
      if ('error' in decision) return { kind: 'failed', error: decision.error };
      try {
        await sleep(decision.delayMs, signal);
      } catch {
        return { kind: 'cancelled' };
      }
    }
  }
}
