import type { DeftEvent, AppEvent, SessionEvent } from '#protocol';
import { CommandError } from '#contract/errors';
import type { SessionHandle, TurnPrompt } from '#contract/capability';
import { noHooks } from '#contract/hooks';
import type { SessionSandbox } from '#contract/sandbox';
import type { Session } from '#infra/sessions/session';
import { RetryWait } from '#infra/providers/retry';
import { TaskBoard } from '#infra/tasks/task-board';
import type { CapabilitySet } from '../capability-set';
import type { ContextKeeper } from '../compaction/context-keeper';
import { SubagentHost, type SubagentHostDeps } from '../subagents/host';
import { PromptQueue } from '../turn/prompt-queue';
import type { Runs } from '../turn/runs';
import { sessionStartHooks } from '../turn/hook-events';
import { sessionBasics } from './basics';
import type { LetGo, OpenSession } from './open-session';

/** What opening a session needs from the core. */
export interface SessionLoadDeps {
  capabilities: CapabilitySet;
  context: ContextKeeper;
  runs: Runs;
  emit(event: DeftEvent | AppEvent): void;
  /** Start a turn in the session (unless one runs or no model is configured); resolves to its id or null. */
  startTurn(open: OpenSession, prompt: TurnPrompt): Promise<string | null>;
  /** The sandbox a session's commands run in; `authorizeConnection` decides on a host the settings do not allow. */
  sandboxFor(sessionId: string, handle: () => SessionHandle): SessionSandbox;
  /** What its sub-agents need from the core (their calls are decided as the session's own). */
  subagents(session: Session, handle: () => SessionHandle): SubagentHostDeps;
  /** The cap on running background tasks per session (the user's setting). */
  maxRunningTasks(): Promise<number>;
}

/**
 * A session as the core keeps it open: its background tasks, its sub-agents and the handle capabilities get, with
 * every event forwarded to the core's listeners. Nothing is loaded yet: see `startOpenSession`.
 */
export function openSession(deps: SessionLoadDeps, session: Session, problems: string[]): OpenSession {
  const injections: string[] = [];
  // A turn that a capability or a task asks for runs in this open session (declared just below).
  const startTurn = (prompt: TurnPrompt) => deps.startTurn(open, prompt);
  const inject = (text: string) => void injections.push(text);
  const tasks = new TaskBoard({
    sessionId: session.id,
    sessionDir: session.dir,
    session: {
      get running() {
        return session.running;
      },
      startTurn,
      inject,
    },
    emitApp: (event) => deps.emit(event),
    kinds: deps.capabilities.taskKinds,
    maxRunning: () => deps.maxRunningTasks(),
    onEnded: (record) => {
      void deps.capabilities.each((f) => f.onTaskEnded?.(handle, record));
      void handle.hooks.fire({
        hook_event_name: 'Notification',
        notification_type: 'task_finished',
        message: `Background task ${record.id} (${record.description}) ended: ${record.status}.`,
      });
    },
  });
  // A sub-agent's calls are decided as the parent's own: same mode, rules, session approvals, plan mode.
  const subagents = new SubagentHost(deps.subagents(session, () => handle));
  const busy = () => {
    if (deps.runs.busy(session.id)) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc).');
  };
  // Object.assign keeps the basics' live `running` getter.
  const handle: SessionHandle = Object.assign(
    sessionBasics(session, (key, previous) => deps.capabilities.stateChanged(handle, key, previous)),
    {
      hooks: noHooks, // replaced below by the capability's runner, found once the handle exists
      startTurn,
      inject,
      tasks,
      sandbox: deps.sandboxFor(session.id, () => handle),
      subagents,
      undoFrom: async (turnId: string) => {
        busy();
        return deps.context.undoFrom(session, handle, turnId);
      },
      redoUndo: async (turnIds: readonly string[]) => {
        busy();
        await deps.context.redo(session, handle, turnIds);
      },
    },
  );
  // The hooks runner is found on first use (a getter given to Object.assign would be called at once, before the handle exists).
  let hooks: SessionHandle['hooks'] | undefined;
  Object.defineProperty(handle, 'hooks', { enumerable: true, get: () => (hooks ??= deps.capabilities.hookRunner(handle)) });
  const stopForwarding = session.subscribe((event: SessionEvent) => {
    open.lastUsed = performance.now();
    deps.emit(event);
  });
  const open: OpenSession = {
    session,
    problems,
    handle,
    tasks,
    injections,
    queue: new PromptQueue(session),
    retryWait: new RetryWait(),
    gates: [],
    starting: null,
    startSettled: false,
    subagents,
    lastUsed: performance.now(),
    unloaded: false,
    stopForwarding,
  };
  return open;
}

/**
 * Load what an open session keeps on disk (its tasks), tell the capabilities, and start its SessionStart hooks. Opening
 * does not wait for those hooks; its first turn does. A session loaded again after it was let go of did not end: its
 * hooks ran already, and what they gave that no turn has read yet (`takeKept`) is handed on.
 */
export async function startOpenSession(
  capabilities: CapabilitySet,
  open: OpenSession,
  source: 'startup' | 'resume',
  takeKept: () => LetGo | undefined,
): Promise<void> {
  await open.tasks.load();
  for (const capability of capabilities.capabilities) await capability.onSessionLoaded?.(open.handle);
  const kept = takeKept();
  if (kept) open.injections.unshift(...kept.injections);
  open.starting = kept ? Promise.resolve(kept.start) : sessionStartHooks(open.handle, source);
  void open.starting.then(
    () => (open.startSettled = true),
    () => (open.startSettled = true),
  );
}
