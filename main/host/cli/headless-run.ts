import type { DeftEvent, SessionEvent } from '#protocol';
import type { PricedUsage } from '#protocol/helpers/prices';
import type { createNodeCore } from '../compose';

type Core = ReturnType<typeof createNodeCore>;
type TurnEnded = Extract<SessionEvent, { type: 'turn.ended' }>;
type GoalNow = Extract<SessionEvent, { type: 'goal.updated' }>['goal'];
export type ModelUsage = PricedUsage & { cacheWriteTokens: number };

/** What a headless run does with what it sees: events out (stream-json), hook complaints on stderr. */
export interface RunSink {
  /** Every event of the session (and its sub-agents' `agent.event`s), for stream-json. */
  event?: (event: DeftEvent) => void;
  stderr: (text: string) => void;
  /** Called once, when the first shell command is about to run. */
  onFirstCommand?: () => Promise<void>;
}

/**
 * One session followed headless over one or more turns: the CLI's `deft run` (one prompt, or prompts on stdin) and
 * the `deft/sdk` API drive it. It counts this run's steps and tokens, keeps the last turn's final answer, and waits
 * after each prompt while the agent has work that will wake it (a background task, a goal).
 */
export class HeadlessRun {
  readonly steps = new Set<string>();
  readonly byModel: Record<string, ModelUsage> = {};
  promptBlocked = false;
  interrupted = false;
  private stepText = new Map<number, string>();
  private lastStepWithText = 0;
  private ended: TurnEnded | null = null;
  private goal: GoalNow = null;
  private stopWaiting = new AbortController();
  private firstCommand: Promise<void> | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    readonly core: Core,
    readonly sessionId: string,
    private readonly sink: RunSink,
  ) {
    this.unsubscribe = core.onEvent((event) => this.seen(event));
  }

  private seen(event: DeftEvent): void {
    const { sink, sessionId } = this;
    // A sub-agent's own events, tagged with its agent id, so a headless client can follow it too.
    if (event.type === 'agent.event' && event.sessionId === sessionId) {
      sink.event?.(event);
      return;
    }
    if (!('seq' in event) || event.sessionId !== sessionId) return;
    if (event.type === 'tool.call.started' && event.display?.kind === 'command' && sink.onFirstCommand)
      this.firstCommand ??= sink.onFirstCommand().catch(() => {});
    if (sink.event) sink.event(event);
    // Headless, what a hook refused or failed at is said on stderr (stream-json carries every hook event).
    else if (event.type === 'hook.ran' && event.result !== 'context' && event.result !== 'allowed' && event.result !== 'output') {
      sink.stderr(`deft: ${event.event} hook "${event.command}" ${event.result}: ${event.message}\n`);
    }
    if (event.type === 'step.started') this.steps.add(`${event.turnId}:${event.step}`);
    else if (event.type === 'usage') {
      const sum = (this.byModel[event.model ?? ''] ??= { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 });
      sum.inputTokens += event.step.inputTokens;
      sum.outputTokens += event.step.outputTokens;
      sum.cachedTokens = (sum.cachedTokens ?? 0) + (event.step.cachedTokens ?? 0);
      sum.cacheWriteTokens += event.step.cacheWriteTokens ?? 0;
    } else if (event.type === 'hook.ran' && event.event === 'UserPromptSubmit' && (event.result === 'blocked' || event.result === 'stopped')) {
      this.promptBlocked = true;
    }
    if (event.type === 'turn.started') {
      this.stepText.clear();
      this.lastStepWithText = 0;
    } else if (event.type === 'assistant.delta') {
      this.stepText.set(event.step, (this.stepText.get(event.step) ?? '') + event.text);
      this.lastStepWithText = event.step;
    } else if (event.type === 'step.retrying' || event.type === 'step.started') {
      this.stepText.delete(event.step);
    } else if (event.type === 'goal.updated') {
      this.goal = event.goal;
    } else if (event.type === 'turn.ended') {
      this.ended = event;
      // A failed or stopped turn ends the wait; background work is stopped with the core.
      if (event.stopReason === 'cancelled' || event.stopReason === 'error' || event.stopReason === 'filtered') this.stopWaiting.abort();
    }
  }

  /** Start a turn with `start`, then wait until it and the turns its background work wakes have ended. */
  async turn(start: () => Promise<unknown>): Promise<void> {
    this.ended = null;
    this.promptBlocked = false;
    if (this.stopWaiting.signal.aborted && !this.interrupted) this.stopWaiting = new AbortController();
    await start();
    await this.core.settled(this.sessionId, this.stopWaiting.signal);
    await this.core.turnDone(this.sessionId);
    await this.firstCommand;
  }

  /** Ctrl-C: stop the turn and stop waiting. */
  interrupt(): void {
    this.interrupted = true;
    this.stopWaiting.abort();
    void this.core.handlers.cancelTurn({ sessionId: this.sessionId });
  }

  /** How the last turn ended (null: it did not). */
  get end(): TurnEnded | null {
    return this.ended;
  }

  /** The last turn's final answer (a goal's closing note when UpdateGoal ended it, with no answer after it). */
  answer(): string {
    const goal = this.goal;
    const goalNote = goal && (goal.status === 'complete' || goal.status === 'blocked') ? `Goal ${goal.status}${goal.reason ? `: ${goal.reason}` : '.'}` : '';
    return this.stepText.get(this.lastStepWithText) || goalNote;
  }

  /** This run's tokens, summed over its models. */
  usage() {
    const models = Object.values(this.byModel);
    const total = (pick: (u: ModelUsage) => number) => models.reduce((n, u) => n + pick(u), 0);
    return {
      input_tokens: total((u) => u.inputTokens),
      output_tokens: total((u) => u.outputTokens),
      cache_read_input_tokens: total((u) => u.cachedTokens ?? 0),
      cache_creation_input_tokens: total((u) => u.cacheWriteTokens),
    };
  }

  /** Stop following the session (the core is closed by its owner). */
  close(): void {
    this.unsubscribe();
  }
}
