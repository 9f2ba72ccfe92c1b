import type { CapabilitySet } from '../capability-set';
import type { Runs } from '../turn/runs';
import type { OpenSession } from './open-session';

/** What decides whether an open session may be let go of. */
export interface UnloadChecks {
  /** The sessions some viewer (a window, a connection, a CLI run) shows now. */
  shown(): ReadonlySet<string>;
  /** Sessions a command in progress names. */
  inUse(sessionId: string): boolean;
  runs: Runs;
  capabilities: CapabilitySet;
}

/** Whether a session may be let go of now: no viewer shows it and nothing of it runs, waits or is held by a command. */
export function canUnload(open: OpenSession, checks: UnloadChecks): boolean {
  const id = open.session.id;
  if (checks.shown().has(id) || checks.inUse(id) || !checks.runs.quiet(id)) return false;
  if (open.tasks.list(true).length || open.gates.length || !open.startSettled || open.subagents.active) return false;
  return checks.capabilities.allowUnload(id);
}

/**
 * Looks at the open sessions when the next one that no viewer shows may have been idle long enough, and lets go of
 * those that may be (`unload`). One timer at a time; unref'd, so it never keeps a process alive.
 */
export class IdleSweep {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    /** How long a session stays idle before it is let go of (Infinity: never). */
    private readonly after: number,
    private readonly deps: { sessions(): OpenSession[]; shown(): ReadonlySet<string>; canUnload(open: OpenSession): boolean; unload(open: OpenSession): void },
  ) {}

  arm(delay?: number): void {
    if (this.timer || this.stopped || !Number.isFinite(this.after)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sweep();
    }, delay ?? this.after);
    this.timer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private sweep(): void {
    const shown = this.deps.shown();
    const now = performance.now();
    // A session that was used recently is looked at again when its idle time is up; a busy one after a whole interval.
    let next = Infinity;
    for (const open of this.deps.sessions()) {
      if (shown.has(open.session.id)) continue;
      const idleFor = now - open.lastUsed;
      if (idleFor < this.after) next = Math.min(next, this.after - idleFor);
      else if (this.deps.canUnload(open)) this.deps.unload(open);
      else next = Math.min(next, this.after);
    }
    if (next < Infinity) this.arm(Math.max(1, Math.ceil(next)));
  }
}
