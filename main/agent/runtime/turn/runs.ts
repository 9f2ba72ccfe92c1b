import type { TurnOutcome } from '#contract/capability';
import { clearRunning, markRunning } from '#infra/sessions/running';
import type { Session } from '#infra/sessions/session';

interface ActiveRun {
  runId: string;
  controller: AbortController;
  done: Promise<TurnOutcome>;
}

/**
 * The one run (a turn, or a compaction the user asked for) each session may have at a time, and the
 * bookkeeping every run ends with: the session stops showing as running, is touched, announced and
 * written to disk.
 */
export class Runs {
  private readonly active = new Map<string, ActiveRun>();
  /** Turns asked for (by a capability) whose run has not begun yet. */
  private readonly starting = new Map<string, Set<Promise<unknown>>>();
  /** Runs that have ended but whose `after` (capabilities' onTurnEnded, which may start the next turn) still runs. */
  private readonly ending = new Map<string, Promise<TurnOutcome>>();

  busy(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /**
   * The session's run, if any: resolves when it (and what runs after it) has ended. A run whose `after` still runs
   * (its checkpoint being recorded) counts: it is not done yet, though the session no longer shows as running.
   */
  done(sessionId: string): Promise<TurnOutcome> | undefined {
    return this.active.get(sessionId)?.done ?? this.ending.get(sessionId);
  }

  /** Every run in progress. */
  all(): Promise<TurnOutcome>[] {
    return [...this.active.values()].map((run) => run.done);
  }

  /** What a session still has going: its run, or else the turns being started for it. */
  pending(sessionId: string): Promise<unknown>[] {
    const run = this.done(sessionId);
    return run ? [run] : [...(this.starting.get(sessionId) ?? [])];
  }

  /** Nothing runs, starts or is still ending in the session (it may be let go of). */
  quiet(sessionId: string): boolean {
    return !this.active.has(sessionId) && !this.starting.get(sessionId)?.size && !this.ending.has(sessionId);
  }

  /** Note a turn being started for a session until `started` settles. */
  noteStarting<T>(sessionId: string, started: Promise<T>): Promise<T> {
    const pending = this.starting.get(sessionId) ?? new Set<Promise<unknown>>();
    this.starting.set(sessionId, pending);
    pending.add(started);
    void started
      .catch(() => null)
      .finally(() => {
        pending.delete(started);
        if (!pending.size && this.starting.get(sessionId) === pending) this.starting.delete(sessionId);
      });
    return started;
  }

  /**
   * Run `work` as the session's run. When it ends the session is marked idle, touched, announced and
   * flushed; then `after` runs (it may start the next turn). `done` resolves after both.
   */
  start(session: Session, runId: string, work: (signal: AbortSignal) => Promise<TurnOutcome>, after?: (outcome: TurnOutcome) => Promise<void>): void {
    const controller = new AbortController();
    session.running = true;
    // Every session says so on disk (infra/sessions/running.ts): discarding its worktree elsewhere is refused meanwhile, and
    // a window on another checkout of the repository (a worktree's, or the main checkout's) shows it running.
    markRunning(session.dir);
    const run: { done?: Promise<TurnOutcome> } = {};
    const done = (async () => {
      let outcome: TurnOutcome | undefined;
      try {
        outcome = await work(controller.signal);
      } finally {
        session.running = false;
        clearRunning(session.dir);
        if (run.done) this.ending.set(session.id, run.done);
        this.active.delete(session.id);
        session.touch();
        session.emit({ type: 'session.updated', session: session.summary() });
        await session.flush().catch(() => {});
      }
      try {
        await after?.(outcome);
      } finally {
        if (this.ending.get(session.id) === run.done) this.ending.delete(session.id);
      }
      return outcome;
    })();
    run.done = done;
    this.active.set(session.id, { runId, controller, done });
  }

  /** Stop the session's run; false when none runs (or it is already stopping). */
  cancel(sessionId: string): boolean {
    const run = this.active.get(sessionId);
    if (!run || run.controller.signal.aborted) return false;
    run.controller.abort(new Error('Cancelled by the user'));
    return true;
  }

  cancelAll(): void {
    for (const sessionId of this.active.keys()) this.cancel(sessionId);
  }
}
