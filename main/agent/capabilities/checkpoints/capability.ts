import { relative, sep } from 'node:path';
import type { CommandHandlers } from '#contract/commands';
import type { Capability, CapabilityFactory, SessionHandle, ToolsStart } from '#contract/capability';
import { changedByOthers, promptList } from './history';
import type { ReviewPane } from './review-pane';
import { Rewinds, lastRewindSlot, pendingNoteSlot } from './rewind';
import { writeCheckpointSettings } from './settings';
import { CheckpointStorageKeeper } from './storage';
import type { Checkpoint, CheckpointMeta, FileChange } from './store/store';
import { WorkspaceCheckpoints } from './workspace';

/**
 * The files a step's calls may write: null when every call is read-only (nothing to look at); the files when
 * each writing call named them (Write, Edit: only those are looked at, and whatever else changed meanwhile is
 * in the next full checkpoint); undefined when one may change anything (a command, an MCP tool, a sub-agent).
 */
function writesOf(calls: ToolsStart['calls']): readonly string[] | undefined | null {
  const writing = calls.filter((c) => !c.readOnly);
  if (!writing.length) return null;
  return writing.every((c) => c.writes) ? writing.flatMap((c) => c.writes ?? []) : undefined;
}

interface TurnState {
  turnId: string;
  meta: Omit<CheckpointMeta, 'session'>;
  /** The checkpoint taken before the turn (once `snapshot` settled). */
  before: Checkpoint | null;
  snapshot?: Promise<void>;
  /** Whether the last step that ran tools was followed by a capture of what it changed (then, unless a task runs, the turn's end adds nothing). */
  capturedAfterTools?: boolean;
  toolsMayWrite?: boolean;
  /** Background tasks that had ended when the turn began: one that ends during the turn is not among them. */
  endedBefore: ReadonlySet<string>;
  /** The turn's checkpoint waits for its first step that may write (WorkspaceCheckpoints.narrowableBaseline). */
  lazy?: boolean;
  /** It was narrowed to the files that step named (then `named` holds every file a step named since). */
  narrowed?: boolean;
  named: Set<string>;
  /** After a narrowed one, the tree of the turn's first capture of the whole workspace (just before a command). */
  firstFull?: string | null;
}

/** The session's background tasks that have ended. */
function endedTasks(session: SessionHandle): Set<string> {
  return new Set(
    session.tasks
      .list()
      .filter((t) => t.status !== 'running')
      .map((t) => t.id),
  );
}

/**
 * Tools whose calls run commands, which name no files (the file watcher says what they changed). Other tools that
 * name no files (MCP tools, sub-agents) start the watch at their step's checkpoint, as before; a name wrongly in or out
 * of this set costs time, never a change.
 */
const COMMAND_TOOLS = new Set(['Bash']);

/** Files a turn's changes event lists at most (the count of the rest is sent). */
const MAX_TURN_FILES = 200;

/**
 * Checkpoints: a snapshot of the workspace before every turn and after every step, background task or turn
 * that may have changed it — whatever changed it (the file tools, shell commands, sub-agents, hooks, MCP
 * tools), since the workspace itself is compared, not what tools report. Rewind files, conversation or both
 * to any prompt (and undo that), review a turn's changes and revert a file or a hunk, and keep the store
 * within its size cap.
 */
export const checkpointsCapability: CapabilityFactory = (core) => {
  const checkpoints = new WorkspaceCheckpoints(core);
  const rewinds = new Rewinds(checkpoints);
  // The review pane's code is loaded with its first command: a run without a window never asks for it.
  let opening: Promise<ReviewPane> | undefined;
  const reviewPane = () => (opening ??= import('./review-pane').then(({ ReviewPane }) => new ReviewPane(checkpoints)));
  const storage = new CheckpointStorageKeeper(checkpoints, core.home, core.place.id, () => core.now());
  /** The turn running in each session. */
  const current = new Map<string, TurnState>();
  /**
   * The checkpoint before the turn, taken once, when the turn first needs it: of the whole workspace, or, when the turn
   * waited (`lazy`) for a step that names the files it writes, of those files only (on top of the store's HEAD).
   */
  const baseline = (session: SessionHandle, turn: TurnState, only?: readonly string[]): Promise<void> =>
    (turn.snapshot ??= (async () => {
      const narrowed = turn.lazy === true && only?.length ? await checkpoints.take(session, turn.meta, true, only) : null;
      turn.narrowed = !!narrowed;
      // Files named outside the workspace only (nothing to narrow to), or a narrowed look that failed: the whole workspace.
      turn.before = narrowed ?? (await checkpoints.take(session, turn.meta, true)) ?? null;
    })());
  let warming: Promise<void> | null = null;

  // Kept with the session, so a rewind made by `deft rewind` reaches the model at the next turn, whichever process runs it.
  const note = (session: SessionHandle) => (text: string) => session.state(pendingNoteSlot).set(text);
  const withSession = async <T>(sessionId: string, work: (session: SessionHandle) => Promise<T>): Promise<T> => {
    const session = await core.session(sessionId);
    const result = await work(session);
    await session.flush().catch(() => {});
    return result;
  };

  const commands: Partial<CommandHandlers> = {
    listCheckpoints: async ({ sessionId }) => {
      const session = await core.session(sessionId);
      const status = await checkpoints.status();
      const store = await checkpoints.store();
      if (!store) return { status, prompts: [] };
      const list = await store.list(session.id);
      const now = session.running ? null : (await store.locked(() => store.capture())).tree;
      return { status, prompts: await promptList(store, list, session.contextTurns(), now) };
    },
    previewRewind: async ({ sessionId, turnId, scope }) => rewinds.preview(await core.session(sessionId), turnId, scope),
    rewind: async ({ sessionId, turnId, scope, includeOutside, expect }) =>
      withSession(sessionId, (session) => rewinds.rewind(session, { turnId, scope, includeOutside, ...(expect ? { expect } : {}), note: note(session) })),
    undoRewind: async ({ sessionId }) => withSession(sessionId, (session) => rewinds.undo(session)),
    reviewChanges: async ({ sessionId, turnId }) => (await reviewPane()).changes(await core.session(sessionId), turnId),
    revertChange: async ({ sessionId, turnId, path, hunk }) => (await reviewPane()).revert(await core.session(sessionId), turnId, path, hunk),
    undoRevert: async ({ sessionId, revertId }) => (await reviewPane()).undoRevert(await core.session(sessionId), revertId),
    checkpointStorage: async () => storage.report(),
    setCheckpointLimits: async ({ limitBytes, maxFileBytes }) => {
      const settings = await writeCheckpointSettings(core.home, {
        ...(limitBytes !== undefined ? { limitBytes } : {}),
        ...(maxFileBytes !== undefined ? { maxFileBytes } : {}),
      });
      (await checkpoints.store())?.setMaxFileBytes(settings.maxFileBytes);
      return storage.report();
    },
    cleanUpCheckpoints: async () => storage.cleanUp(),
  };

  const capability: Capability = {
    name: 'checkpoints',
    commands,
    // Where a window shows sessions, the store's index is filled before the first prompt; a headless run
    // prompts at once, and its first checkpoint would only wait for this one.
    onSessionLoaded: () => {
      if (core.host.hasWindow) warming ??= checkpoints.warm();
    },
    // Let what the store is writing finish (the warm-up, a task's checkpoint), so nothing writes after the core has closed.
    close: async () => {
      storage.close();
      await warming;
      const store = await checkpoints.store().catch(() => null);
      await store?.locked(async () => {}).catch(() => {});
      store?.close();
      await checkpoints.closeWatch();
    },
    onTurnStart: (session, { turnId, prompt }) => {
      const pending = session.state(pendingNoteSlot).get();
      if (pending) {
        session.inject(pending);
        session.state(pendingNoteSlot).set(null);
      }
      const last = session.state(lastRewindSlot).get();
      if (last && !last.closed) session.state(lastRewindSlot).set({ ...last, closed: true });
      // The snapshot before the turn is taken when the model starts a tool call (or, failing that, before calls
      // run): a text-only turn starts no git and reads no file of the workspace.
      current.set(session.id, {
        turnId,
        before: null,
        meta: { kind: 'turn', turnId, origin: prompt.origin, prompt: prompt.text.slice(0, 200) },
        endedBefore: endedTasks(session),
        named: new Set(),
      });
    },
    onToolCallComing: (session, { tool }) => {
      // A command is coming: the file watcher starts before the next capture of the whole workspace, which is then
      // its starting point, so the capture just before the command and the one after it look only at what it reported.
      if (COMMAND_TOOLS.has(tool)) checkpoints.commandComing();
      const turn = current.get(session.id);
      if (!turn) return undefined;
      if (COMMAND_TOOLS.has(tool) || turn.lazy === false) return baseline(session, turn);
      // Another tool (a Read, a Write): where the turn's checkpoint can be narrowed to what its first writing step names,
      // it waits for that step (a read-only turn then takes none: its prompt's checkpoint is the session's latest state).
      return (async () => {
        turn.lazy ??= session.tasks.list(true).length === 0 && (await checkpoints.narrowableBaseline());
        if (!turn.lazy) await baseline(session, turn);
      })();
    },
    // Just before a step's approved calls run: what changed since (the user's edits while the model wrote, or
    // while they were asked) is told apart from what the calls do — a rewind leaves it as it is.
    onToolsStart: async (session, step) => {
      const known = writesOf(step.calls);
      if (known === null) return;
      const turn = current.get(session.id);
      if (turn) {
        await baseline(session, turn, known);
        turn.toolsMayWrite = true;
        for (const path of known ?? []) turn.named.add(path);
      }
      await checkpoints.take(session, { kind: 'tools', turnId: step.turnId, step: step.step }, false, known);
      // The first look at the whole workspace after a narrowed checkpoint: what differs from there on is the turn's.
      if (turn?.narrowed && !known && turn.firstFull === undefined) turn.firstFull = await checkpoints.latestTree(session.id);
    },
    onStepEnd: async (session, step) => {
      // Read-only calls cannot change the workspace; anything else might (a command, an MCP tool, a sub-agent).
      const known = writesOf(step.calls);
      if (known === null) return;
      const meta = { kind: 'step' as const, turnId: step.turnId, step: step.step };
      const turn = current.get(session.id);
      if (turn) {
        await baseline(session, turn);
        Object.assign(turn, { capturedAfterTools: false, toolsMayWrite: true });
      }
      const taken = await checkpoints.take(session, meta, false, known);
      // Narrowed to the files the calls named (Write, Edit) or in full: either way it holds what the step changed.
      if (turn && taken !== undefined) turn.capturedAfterTools = true;
    },
    onTurnEnded: async (session) => {
      const turn = current.get(session.id);
      current.delete(session.id);
      if (!turn) return;
      // A task that ended during the turn counts as running: its own checkpoint (onTaskEnded) may not have been taken
      // yet — the task's end and the turn's can come in either order — and what it changed is the turn's.
      const ended = endedTasks(session);
      const tasksRunning = session.tasks.list(true).length > 0 || [...ended].some((id) => !turn.endedBefore.has(id));
      // No call of the turn could write and nothing runs in the background: the prompt's checkpoint is the
      // session's latest state, recorded without a look at the workspace.
      if (!turn.snapshot && !tasksRunning) {
        await checkpoints.takeUnchanged(session, turn.meta);
        return;
      }
      await baseline(session, turn);
      if (!turn.before) return;
      // The last tool step's changes were captured, or no call of the turn could write, and nothing Deft runs can
      // have changed files since: one capture fewer. An edit made outside Deft meanwhile shows at the next
      // prompt's checkpoint, as outside, as it would here.
      const settled = (turn.capturedAfterTools === true || !turn.toolsMayWrite) && !tasksRunning;
      const end = settled ? null : await checkpoints.take(session, { kind: 'turn-end', turnId: turn.turnId });
      const store = await checkpoints.store();
      if (!store) return;
      const endTree = end?.tree ?? (await checkpoints.latestTree(session.id)) ?? turn.before.tree;
      // Line counts of the files the event lists only (the first MAX_TURN_FILES): a command that changed 500 files is
      // not diffed 500 times, and starts no git where its files are small.
      const all = await store.changes(turn.before.tree, endTree, MAX_TURN_FILES).catch((): FileChange[] => []);
      // What another session in this folder made while this turn ran is not this turn's change.
      const others = await changedByOthers(
        store,
        session.id,
        all.map((c) => ({ path: c.path, blob: c.newBlob })),
        turn.before.at,
      ).catch(() => new Set<string>());
      let changes = all.filter((c) => !others.has(c.path));
      // A narrowed checkpoint before the turn, then a look at the whole workspace just before a command: what differs
      // between those two, other than the files the turn's steps named, changed outside the turn (before it, or while
      // the model wrote). The turn's own are the named files and what changed after that look.
      if (turn.narrowed && turn.firstFull) {
        const since = new Set((await store.changes(turn.firstFull, endTree).catch(() => [])).map((c) => c.path));
        const named = new Set([...turn.named].map((path) => relative(store.places.workspace, path).split(sep).join('/')));
        changes = changes.filter((c) => since.has(c.path) || named.has(c.path));
      }
      // Files left out above (another session's, or changed outside the turn) may bring into the list files beyond those counted.
      const listed = changes.slice(0, MAX_TURN_FILES);
      if (listed.some((c) => all.indexOf(c) >= MAX_TURN_FILES)) {
        const counted = new Map((await store.changes(turn.before.tree, endTree, true).catch(() => [])).map((c) => [c.path, c]));
        changes = changes.map((c) => counted.get(c.path) ?? c);
      }
      session.emit({
        type: 'turn.changes',
        turnId: turn.turnId,
        files: changes.slice(0, MAX_TURN_FILES).map((c) => ({ path: c.path, status: c.status, added: c.added, removed: c.removed })),
        more: Math.max(0, changes.length - MAX_TURN_FILES),
      });
      storage.afterTurn();
    },
    onTaskEnded: async (session, task) => {
      const turn = current.get(session.id);
      // What the task changed is in no step's capture: the turn's end looks at the whole workspace again.
      if (turn) turn.capturedAfterTools = false;
      if (turn) await baseline(session, turn);
      await checkpoints.take(session, { kind: 'task', note: task.id, ...(turn ? { turnId: turn.turnId } : {}) });
    },
    // A turn in progress keeps the session (the core sees it running too); the latest checkpoint is read from the store again.
    canUnload: (sessionId) => !current.has(sessionId),
    onSessionUnloaded: (session) => checkpoints.forget(session.id),
    // A fork's last rewind is the original's, whose checkpoints are not the fork's: it starts with none (or with the restore).
    onSessionForked: async (fork, from, files) => {
      fork.state(lastRewindSlot).set(null);
      if (files === 'keep') return undefined;
      const result = await rewinds.restoreForFork(fork, from.sessionId, from.turnId);
      await fork.flush();
      return result;
    },
    onSessionDeleted: (sessionId) => {
      current.delete(sessionId);
      checkpoints.forget(sessionId);
    },
  };
  return capability;
};
