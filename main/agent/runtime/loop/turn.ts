import { randomUUID } from 'node:crypto';
import type { SessionEventInput, Usage } from '#protocol';
import type { StepEnd, ToolsStart, TurnOutcome } from '#contract/capability';
import type { ChatProvider, ModelMessage, ToolCallRequest } from '#contract/model';
import type { ToolEnv } from '#contract/tool';
import type { ToolRegistry } from '../tools/registry';
import { type RetryPolicy, type RetryWait, stepWithRetry } from '#infra/providers/retry';
import { type ToolCallOptions, runToolCalls } from './tool-calls';

/**
 * What a turn needs from the session it runs in. The loop knows nothing of compaction or notifications:
 * the session decides, at each step boundary, what its history holds and which messages join it.
 */
export interface TurnSession {
  /** The conversation so far, including this turn's prompt. Read at every step. */
  history(): readonly ModelMessage[];
  append(message: ModelMessage): void;
  emit(event: SessionEventInput): void;
  /** Persist what happened so far (called at step boundaries). */
  checkpoint(): Promise<void>;
  /** Step `step` is about to start: messages to add first (notifications, the user's steers, reminders); the history may have been compacted. */
  beforeStep(step: number): Promise<ModelMessage[]>;
  /** The user steered the running turn and the steer waits for the next step: a final answer does not end the turn. */
  steerWaiting?(): boolean;
  /** Tool-call ids used earlier in the conversation but no longer in the history (compacted or undone). */
  usedCallIds(): ReadonlySet<string>;
  /** Add a model call's tokens to the session's total (and tell the UI). */
  countUsage(turnId: string, usage: Usage): void;
  /** A step's tool calls are about to run: resolves when what must come first (a snapshot of the workspace) is done. */
  beforeTools(): Promise<void>;
  /** The model began a tool call in this step (called for each, with the tool's name; its calls still wait for beforeTools). */
  toolCallComing?(tool: string): void;
  /** A step's approved calls are about to run (they wait for the returned promise). */
  beforeRun?(start: ToolsStart): Promise<void>;
  /** A step's tool calls have finished. */
  afterTools(step: StepEnd): void;
  /**
   * The model gave a final answer (`continued`: how many times this turn was already sent back to work):
   * a message to continue the turn with (a Stop hook's instruction), or null to end it.
   */
  onFinalAnswer?(continued: number): Promise<string | null>;
}

/** The model and the tools a turn works with. */
export interface TurnModel {
  provider: ChatProvider;
  /** Built per step, so changes (skills, modes) reach the model at the next step. */
  system: () => Promise<string> | string;
  registry: ToolRegistry;
  env: ToolEnv;
  /** Decide whether a call may run (approvals suspend here). */
  authorize: NonNullable<ToolCallOptions['authorize']>;
  /** The user's PreToolUse/PostToolUse hooks. */
  hooks?: ToolCallOptions['hooks'];
  saveFullOutput: ToolCallOptions['saveFullOutput'];
}

export interface TurnOptions {
  turnId: string;
  session: TurnSession;
  model: TurnModel;
  signal: AbortSignal;
  retry: RetryPolicy;
  /** Lets the user end the wait before a retry ("Retry now"). */
  retryWait?: RetryWait;
  maxSteps?: number;
  abortGraceMs?: number;
  random?: () => number;
}

/** One turn: stream a step; run the tools it called; step again until a final answer, a cancel, an error, max steps or a tool's stopTurn. */
export async function runTurn(options: TurnOptions): Promise<TurnOutcome> {
  const { turnId, signal, session, model } = options;
  let continued = 0;
  for (let step = 1; ; step++) {
    if (options.maxSteps !== undefined && step > options.maxSteps) return { stopReason: 'max_steps' };
    for (const message of await session.beforeStep(step)) session.append(message);
    session.emit({ type: 'step.started', turnId, step });

    const streamed = await stepWithRetry(
      model.provider,
      async () => ({ system: await model.system(), messages: session.history(), tools: model.registry.schemas(), signal }),
      {
        policy: options.retry,
        signal,
        ...(options.retryWait ? { wait: options.retryWait } : {}),
        purpose: 'talking to the model',
        callbacks: {
          onText: (text) => session.emit({ type: 'assistant.delta', turnId, step, text }),
          onThinking: (text) => session.emit({ type: 'thinking.delta', turnId, step, text }),
          onNote: (message) => session.emit({ type: 'step.note', turnId, step, message }),
          onToolCall: (name) => session.toolCallComing?.(name),
        },
        onRetry: (attempt, delayMs, error) =>
          session.emit({
            type: 'step.retrying',
            turnId,
            step,
            attempt,
            maxAttempts: options.retry.maxAttempts,
            delayMs,
            error: { code: error.code, message: error.message },
          }),
        ...(options.random ? { random: options.random } : {}),
      },
    );
    if (streamed.kind === 'cancelled') {
      if (streamed.partial.trim()) session.append({ role: 'assistant', content: streamed.partial });
      await session.checkpoint();
      return { stopReason: 'cancelled' };
    }
    if (streamed.kind === 'failed') {
      await session.checkpoint();
      return { stopReason: 'error', error: streamed.error };
    }

    const result = streamed.result;
    result.toolCalls = uniqueCallIds(result.toolCalls, session.history(), session.usedCallIds());
    session.append({
      role: 'assistant',
      content: result.text,
      ...(result.reasoning ? { reasoning: result.reasoning } : {}),
      ...(result.reasoningSignature ? { reasoningSignature: result.reasoningSignature } : {}),
      ...(result.toolCalls.length ? { toolCalls: result.toolCalls } : {}),
    });
    session.emit({ type: 'step.ended', turnId, step, finishReason: result.finishReason });
    if (result.usage) session.countUsage(turnId, result.usage);
    await session.checkpoint();

    if (result.toolCalls.length === 0) {
      if (result.finishReason === 'max_tokens') return { stopReason: 'max_tokens' };
      if (result.finishReason === 'filtered') return { stopReason: 'filtered' };
      if (session.steerWaiting?.()) continue;
      const again = await session.onFinalAnswer?.(continued);
      if (signal.aborted) return { stopReason: 'cancelled' };
      if (!again) return { stopReason: 'end_turn' };
      continued++;
      session.append({ role: 'user', content: again });
      await session.checkpoint();
      continue;
    }

    await session.beforeTools();
    const batch = await runToolCalls(result.toolCalls, {
      registry: model.registry,
      env: model.env,
      turnId,
      step,
      signal,
      emit: (event) => session.emit(event),
      saveFullOutput: model.saveFullOutput,
      authorize: model.authorize,
      ...(model.hooks ? { hooks: model.hooks } : {}),
      ...(options.abortGraceMs !== undefined ? { abortGraceMs: options.abortGraceMs } : {}),
      ...(session.beforeRun ? { beforeRun: (calls: ToolsStart['calls']) => session.beforeRun!({ turnId, step, calls }) } : {}),
    });
    for (const message of batch.messages) session.append(message);
    session.afterTools({ turnId, step, calls: batch.ran });
    await session.checkpoint();
    if (signal.aborted) return { stopReason: 'cancelled' };
    if (batch.stopTurn) return { stopReason: 'end_turn' };
  }
}

/**
 * Some local servers number tool calls from zero in every response (`call_0` again and again). Ids
 * must be unique across the conversation — the UI keys cards by them and tool results are matched
 * by them — so a repeated or missing id is replaced before anything records it.
 */
export function uniqueCallIds(calls: readonly ToolCallRequest[], history: readonly ModelMessage[], used: ReadonlySet<string> = new Set()): ToolCallRequest[] {
  // `used` (every id the session has used) is looked up, not copied: it grows with the session.
  const taken = new Set<string>();
  for (const message of history) if (message.role === 'assistant') for (const call of message.toolCalls ?? []) if (!used.has(call.id)) taken.add(call.id);
  return calls.map((call) => {
    let id = call.id;
    while (!id || used.has(id) || taken.has(id)) id = `${call.id || 'call'}_${randomUUID().slice(0, 8)}`;
    taken.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
