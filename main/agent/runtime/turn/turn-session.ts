import type { Usage } from '#protocol';
import type { Authorization, ResolvedCall } from '#contract/calls';
import type { SessionHandle, StepEnd, ToolsStart, TurnOutcome } from '#contract/capability';
import type { SessionHooks } from '#contract/hooks';
import type { ModelMessage } from '#contract/model';
import type { RetryPolicy, RetryWait } from '#infra/providers/retry';
import type { Session } from '#infra/sessions/session';
import { saveToolOutput } from '#infra/sessions/tool-output';
import type { ContextKeeper } from '../compaction/context-keeper';
import { type TurnSession, runTurn } from '../loop/turn';
import { type FactGroup, factReminder } from '../prompt/facts';
import { deferredToolsReminder } from '../tools/deferred';
import type { SessionSetup } from './step-setup';

/** What the context holds after a model call: for the context meter. */
export interface ContextMeasure {
  /** The system prompt of the latest step. */
  system: string;
  tools: SessionSetup['tools'];
  contextWindow: number;
}

/** One turn of a session's agent: the same wiring for a session and for a sub-agent; what differs is passed in. */
export interface SessionTurnOptions {
  turnId: string;
  signal: AbortSignal;
  session: Session;
  handle: SessionHandle;
  setup: SessionSetup;
  context: ContextKeeper;
  /** Messages for the model waiting for the next step boundary (drained at each, as user messages). */
  injections: string[];
  /** The user's steers for this turn (a session's own turns only: a sub-agent never gets its parent's). */
  steers?: { deliver(turnId: string, step: number): string[]; waiting(): boolean };
  /** What this agent is told now (a sub-agent: the parent's facts less its own work). */
  facts(): Promise<FactGroup[]>;
  /** Decide whether a call may run (approvals suspend here). */
  authorize: (call: ResolvedCall) => Promise<Authorization>;
  /** The user's PreToolUse/PostToolUse hooks for the calls of this turn. */
  hooks?: SessionHooks;
  /** Add a model call's tokens where they count; `measured` is what the context holds now. */
  countUsage(turnId: string, usage: Usage, measured: ContextMeasure): void;
  /** A step is about to start. */
  onStep?(): void;
  /**
   * What capabilities asked to finish before the next tool call runs, how a finished step adds to it, and what
   * runs just before a step's approved calls (they wait for it).
   */
  gates?: {
    pending: Promise<unknown>[];
    stepEnded(step: StepEnd): Promise<void>;
    toolsStarting?(start: ToolsStart): Promise<void>;
    /** The model began the turn's first call of a tool (once per tool name). */
    toolCallComing?(tool: string): Promise<void>;
  };
  /** The model gave a final answer: a message to carry on with (a Stop hook's), or null. */
  onFinalAnswer?: (continued: number) => Promise<string | null>;
  retry: RetryPolicy;
  retryWait?: RetryWait;
  maxSteps?: number;
  abortGraceMs?: number;
}

/**
 * Run one turn of a session against its log (contract: loop/turn.ts's TurnSession). At each step boundary: a
 * compaction when the context is full (the deferred-tool selection then starts over), the messages injected meanwhile
 * (after a compaction's note, so notifications arrive verbatim; one a capability just re-attached is not added twice),
 * the deferred tools added or removed since the model last heard, then one reminder with every fact that changed.
 */
export function runSessionTurn(o: SessionTurnOptions): Promise<TurnOutcome> {
  const { session, setup } = o;
  const compactIfDue = o.context.autoCompaction(session, o.handle, setup, o.turnId, o.signal);
  // The system prompt of the latest step, for the context meter's breakdown.
  let system = '';
  const toolsSeen = new Set<string>();
  const turnSession: TurnSession = {
    history: () => session.context,
    append: (message) => session.appendContext(message),
    emit: (event) => void session.emit(event),
    checkpoint: () => session.flush(),
    beforeStep: async (step) => {
      const compacted = await compactIfDue();
      if (compacted) setup.registry.clearSelection();
      o.onStep?.();
      let injected = o.injections.splice(0).map((text): ModelMessage => ({ role: 'user', content: text }));
      const deferred = deferredToolsReminder(session.context, setup.registry);
      if (deferred) injected = [...injected, deferred];
      if (compacted) {
        const present = new Set(session.context.map((m) => m.content));
        injected = injected.filter((m) => !(typeof m.content === 'string' && present.has(m.content)));
      }
      // The user's steers come after what the session injected, verbatim (never filtered as a repeat).
      const steered = o.steers?.deliver(o.turnId, step) ?? [];
      injected = [...injected, ...steered.map((text): ModelMessage => ({ role: 'user', content: text }))];
      const reminder = await factsReminder(o, [...session.context, ...injected]);
      return reminder ? [...injected, reminder] : injected;
    },
    usedCallIds: () => session.callIds,
    ...(o.steers ? { steerWaiting: () => o.steers!.waiting() } : {}),
    countUsage: (id, usage) => o.countUsage(id, usage, { system, tools: setup.tools, contextWindow: setup.contextWindow }),
    toolCallComing: (tool) => {
      if (toolsSeen.has(tool) || !o.gates?.toolCallComing) return;
      toolsSeen.add(tool);
      o.gates.pending.push(o.gates.toolCallComing(tool));
    },
    beforeTools: async () => void (o.gates ? await Promise.all(o.gates.pending.splice(0)) : undefined),
    afterTools: (step) => void o.gates?.pending.push(o.gates.stepEnded(step)),
    ...(o.gates?.toolsStarting ? { beforeRun: (start: ToolsStart) => o.gates!.toolsStarting!(start) } : {}),
    ...(o.onFinalAnswer ? { onFinalAnswer: o.onFinalAnswer } : {}),
  };
  return runTurn({
    turnId: o.turnId,
    session: turnSession,
    model: {
      provider: setup.provider,
      system: async () => (system = await setup.system()),
      registry: setup.registry,
      env: setup.env,
      authorize: o.authorize,
      ...(o.hooks ? { hooks: o.hooks } : {}),
      saveFullOutput: (toolName, callId, output) => saveToolOutput(session.dir, toolName, callId, output),
    },
    signal: o.signal,
    retry: o.retry,
    ...(o.retryWait ? { retryWait: o.retryWait } : {}),
    ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    ...(o.abortGraceMs !== undefined ? { abortGraceMs: o.abortGraceMs } : {}),
  });
}

/** One reminder with every fact that changed since `history` last said it; null when none did (or the facts cannot be read now). */
async function factsReminder(o: Pick<SessionTurnOptions, 'facts'>, history: readonly ModelMessage[]): Promise<ModelMessage | null> {
  try {
    return factReminder(await o.facts(), history);
  } catch {
    return null;
  }
}
