import { randomUUID } from 'node:crypto';
import type { ErrorInfo, SessionEventInput, Usage } from '../../../../protocol';
import type { TurnOutcome } from '../../contract/feature';
import { ProviderError } from '../../infra/providers/errors';
import type { ChatProvider, ModelMessage, StepResult, ToolCallRequest } from '../../infra/providers/types';
import type { ToolEnv } from '../../contract/tool';
import type { ToolRegistry } from '../tools/registry';
import { type RetryPolicy, retryDecision, sleep } from '../../infra/providers/retry';
import { type ToolCallOptions, runToolCalls } from './tool-calls';

export interface TurnOptions {
  turnId: string;
  provider: ChatProvider;
  registry: ToolRegistry;
  env: ToolEnv;
  /** Built per step, so changes (skills, modes) reach the model at the next step. */
  system: () => Promise<string> | string;
  /** The conversation so far, including this turn's prompt. Read at every step. */
  history: () => readonly ModelMessage[];
  append: (message: ModelMessage) => void;
  /** Messages to add before each step (notifications, reminders); they enter the history like any other. */
  beforeStep?: () => ModelMessage[] | Promise<ModelMessage[]>;
  emit: (event: SessionEventInput) => void;
  /** Persist what happened so far (called at step boundaries). */
  checkpoint: () => Promise<void>;
  signal: AbortSignal;
  retry: RetryPolicy;
  /** Tool-call ids used earlier in the conversation but no longer in the history (compacted or undone). */
  usedCallIds?: () => ReadonlySet<string>;
  /** Running token total for the session; updated in place. */
  usageTotal: Usage;
  maxSteps?: number;
  saveFullOutput: ToolCallOptions['saveFullOutput'];
  authorize?: ToolCallOptions['authorize'];
  abortGraceMs?: number;
  random?: () => number;
}

/** One turn: stream a step; run the tools it called; step again until a final answer, a cancel, an error or max steps. */
export async function runTurn(options: TurnOptions): Promise<TurnOutcome> {
  const { turnId, signal } = options;
  for (let step = 1; ; step++) {
    if (options.maxSteps !== undefined && step > options.maxSteps) return { stopReason: 'max_steps' };
    for (const message of (await options.beforeStep?.()) ?? []) options.append(message);
    options.emit({ type: 'step.started', turnId, step });

    const streamed = await streamStep(options, step);
    if (streamed.kind === 'cancelled') {
      if (streamed.partial.trim()) options.append({ role: 'assistant', content: streamed.partial });
      await options.checkpoint();
      return { stopReason: 'cancelled' };
    }
    if (streamed.kind === 'failed') {
      await options.checkpoint();
      return { stopReason: 'error', error: streamed.error };
    }

    const result = streamed.result;
    result.toolCalls = uniqueCallIds(result.toolCalls, options.history(), options.usedCallIds?.());
    options.append({
      role: 'assistant',
      content: result.text,
      ...(result.reasoning ? { reasoning: result.reasoning } : {}),
      ...(result.reasoningSignature ? { reasoningSignature: result.reasoningSignature } : {}),
      ...(result.toolCalls.length ? { toolCalls: result.toolCalls } : {}),
    });
    options.emit({ type: 'step.ended', turnId, step, finishReason: result.finishReason });
    if (result.usage) {
      const total = options.usageTotal;
      total.inputTokens += result.usage.inputTokens;
      total.outputTokens += result.usage.outputTokens;
      options.emit({ type: 'usage', turnId, step: result.usage, total: { ...total } });
    }
    await options.checkpoint();

    if (result.toolCalls.length === 0) {
      if (result.finishReason === 'max_tokens') return { stopReason: 'max_tokens' };
      if (result.finishReason === 'filtered') return { stopReason: 'filtered' };
      return { stopReason: 'end_turn' };
    }

    const toolMessages = await runToolCalls(result.toolCalls, {
      registry: options.registry,
      env: options.env,
      turnId,
      step,
      signal,
      emit: options.emit,
      saveFullOutput: options.saveFullOutput,
      ...(options.authorize ? { authorize: options.authorize } : {}),
      ...(options.abortGraceMs !== undefined ? { abortGraceMs: options.abortGraceMs } : {}),
    });
    for (const message of toolMessages) options.append(message);
    await options.checkpoint();
    if (signal.aborted) return { stopReason: 'cancelled' };
  }
}

type Streamed = { kind: 'ok'; result: StepResult } | { kind: 'cancelled'; partial: string } | { kind: 'failed'; error: ErrorInfo };

async function streamStep(options: TurnOptions, step: number): Promise<Streamed> {
  const { turnId, signal, retry } = options;
  for (let attempt = 1; ; attempt++) {
    let partial = '';
    try {
      if (signal.aborted) return { kind: 'cancelled', partial: '' };
      const result = await options.provider.step(
        { system: await options.system(), messages: options.history(), tools: options.registry.schemas(), signal },
        {
          onText: (text) => {
            partial += text;
            options.emit({ type: 'assistant.delta', turnId, step, text });
          },
          onThinking: (text) => options.emit({ type: 'thinking.delta', turnId, step, text }),
        },
      );
      return { kind: 'ok', result };
    } catch (error) {
      if (signal.aborted) return { kind: 'cancelled', partial };
      if (!(error instanceof ProviderError)) {
        return { kind: 'failed', error: { code: 'internal', message: `Unexpected error while talking to the model: ${(error as Error)?.message ?? String(error)}` } };
      }
      const decision = retryDecision(error, attempt, retry, options.random);
      if ('error' in decision) return { kind: 'failed', error: decision.error };
      const { delayMs } = decision;
      options.emit({
        type: 'step.retrying',
        turnId,
        step,
        attempt,
        maxAttempts: retry.maxAttempts,
        delayMs,
        error: { code: error.code, message: error.message },
      });
      try {
        await sleep(delayMs, signal);
      } catch {
        return { kind: 'cancelled', partial: '' };
      }
    }
  }
}

/**
 * Some local servers number tool calls from zero in every response (`call_0` again and again). Ids
 * must be unique across the conversation — the UI keys cards by them and tool results are matched
 * by them — so a repeated or missing id is replaced before anything records it.
 */
export function uniqueCallIds(calls: readonly ToolCallRequest[], history: readonly ModelMessage[], used: Iterable<string> = []): ToolCallRequest[] {
  const seen = new Set<string>(used);
  for (const message of history) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) seen.add(call.id);
  return calls.map((call) => {
    let id = call.id;
    while (!id || seen.has(id)) id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
