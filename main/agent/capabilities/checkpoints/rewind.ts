import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { RestoreProblem, RewindFile, RewindPreview, RewindResult, RewindScope, SkippedFileInfo } from '#protocol';
import { CommandError } from '#contract/errors';
import type { SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';
import { blobDiff } from './file-diffs';
import { changedByOthers, changedOutside, turnCheckpoint, turnEndCheckpoint } from './history';
import type { Capture, Checkpoint, FileChange } from './store/store';
import type { CheckpointStoreApi } from './store/store-api';
import type { WorkspaceCheckpoints } from './workspace';

/** The session's last rewind, kept until it is undone or a turn runs after it (its schema built when a value is checked). */
export const lastRewindSlot = stateSlot(
  'checkpoints.lastRewind',
  () =>
    z
      .object({
        rewindId: z.string(),
        scope: z.enum(['both', 'code', 'conversation']),
        index: z.number(),
        /** Checkpoint ids (`<session>/<seq>`) just before and just after the files were restored. */
        before: z.string().nullable(),
        after: z.string().nullable(),
        undoneTurns: z.array(z.string()),
        /** A turn has run since: the rewind can no longer be undone. */
        closed: z.boolean(),
      })
      .nullable(),
  null,
);
/** What the model must be told at its next turn (its files were rewound under a conversation it kept). */
export const pendingNoteSlot = stateSlot('checkpoints.pendingNote', () => z.string().nullable(), null);

/** Lines of diff a preview carries in all (each file is capped too). */
const PREVIEW_LINE_BUDGET = 20_000;

interface Plan {
  target: Checkpoint | undefined;
  changes: FileChange[];
  skipped: SkippedFileInfo[];
  outside: Set<string>;
  /** Of `outside`, what another session in this folder made. */
  others: Set<string>;
  now: Capture;
}

/** Rewinds of a session's files and conversation to just before one of its prompts, and their undo. */
export class Rewinds {
  constructor(private readonly checkpoints: WorkspaceCheckpoints) {}

  async preview(session: SessionHandle, turnId: string, scope: RewindScope): Promise<RewindPreview> {
    idle(session);
    const conversation = conversationPart(session, turnId);
    const store = scope === 'conversation' ? await this.checkpoints.store() : await this.checkpoints.require();
    const list = store ? await store.list(session.id) : [];
    const target = turnCheckpoint(list, turnId);
    const base = {
      turnId,
      index: promptIndex(list, turnId),
      text: target?.prompt ?? '',
      at: target?.at ?? 0,
      scope,
      conversation,
      runningTasks: running(session),
    };
    if (scope === 'conversation' || !store) return { ...base, files: [], notCaptured: [], expect: '' };
    if (!target) throw noCheckpoint();
    const plan = await store.locked(() => this.plan(store, target));
    let budget = PREVIEW_LINE_BUDGET;
    const files: RewindFile[] = [];
    for (const change of plan.changes) {
      // Changes run from now (old side) to the target (new side): the diff is what the rewind does.
      const diff = await blobDiff(store, change.oldBlob, change.newBlob, Math.max(0, Math.min(2_000, budget)));
      budget -= diff.hunks.reduce((n, h) => n + h.lines.length, 0);
      files.push({
        path: change.path,
        // What the target has and now lacks comes back; what now has and the target lacks goes.
        action: change.status === 'added' ? 'bring_back' : change.status === 'deleted' ? 'remove' : 'restore',
        outside: plan.outside.has(change.path),
        ...(plan.others.has(change.path) ? { otherSession: true } : {}),
        binary: diff.binary,
        added: change.added,
        removed: change.removed,
        hunks: diff.hunks,
        ...(diff.truncated ? { truncated: true } : {}),
      });
    }
    return { ...base, files, notCaptured: plan.skipped, expect: plan.now.tree };
  }

  async rewind(
    session: SessionHandle,
    options: { turnId: string; scope: RewindScope; includeOutside: boolean; expect?: string; note: (text: string) => void },
  ): Promise<RewindResult> {
    idle(session);
    const { turnId, scope } = options;
    const conversation = conversationPart(session, turnId);
    if (scope !== 'code' && !conversation.possible)
      throw new CommandError('invalid_request', conversation.reason ?? 'The conversation cannot be rewound to that prompt.');
    const rewindId = `rewind-${randomUUID().slice(0, 8)}`;
    const store = scope === 'conversation' ? await this.checkpoints.store() : await this.checkpoints.require();
    const list = store ? await store.list(session.id) : [];
    const index = promptIndex(list, turnId);
    const result = emptyResult(rewindId, scope, turnId, index);
    let before: Checkpoint | null = null;
    let after: Checkpoint | null = null;
    if (scope !== 'conversation' && store) {
      const target = turnCheckpoint(list, turnId);
      if (!target) throw noCheckpoint();
      ({ before, after } = await this.restoreFiles(store, list, target, session.id, result, { ...options, label: `before rewinding to ${turnId}` }));
      const changed = result.restored.length + result.removed.length + result.broughtBack.length;
      if (changed && scope === 'code') {
        options.note(
          `<system-reminder>The user rewound the workspace's files to how they were before prompt ${index || turnId}: ${describeCounts(result)}. The conversation was kept, so files may no longer be what you last read or wrote; read them again before changing them.</system-reminder>`,
        );
      }
    }
    if (scope !== 'code') {
      result.undoneTurns = await session.undoFrom(turnId);
      // The conversation now ends before the files changed: what the model reads and the files agree again.
      if (scope === 'both') session.state(pendingNoteSlot).set(null);
    }
    const ids = (c: Checkpoint | null) => (c ? c.id : null);
    session.state(lastRewindSlot).set({ rewindId, scope, index, before: ids(before), after: ids(after), undoneTurns: result.undoneTurns, closed: false });
    session.emit({ type: 'rewind.done', result });
    return result;
  }

  /**
   * A fork's files put back as they were at the end of turn `turnId` of session `sourceId` (its last checkpoint;
   * null: the source's latest). Files changed outside the source's turns since are kept, as a rewind keeps them.
   * Recorded as a rewind of the fork (checkpoints before and after, in the fork's list), so undoRewind undoes it.
   */
  async restoreForFork(fork: SessionHandle, sourceId: string, turnId: string | null): Promise<RewindResult> {
    const store = await this.checkpoints.require();
    const list = await store.list(sourceId);
    const target = turnId ? turnEndCheckpoint(list, turnId) : list.at(-1);
    if (!target)
      throw new CommandError(
        'not_found',
        'No checkpoint was taken of that point (it ran before checkpoints were on), so its files cannot be restored. Fork with the files kept as they are.',
      );
    const rewindId = `rewind-${randomUUID().slice(0, 8)}`;
    const index = turnId ? promptIndex(list, turnId) : 0;
    const result = emptyResult(rewindId, 'code', turnId ?? target.turnId ?? '', index);
    const { before, after } = await this.restoreFiles(store, list, target, fork.id, result, {
      includeOutside: false,
      label: `before restoring the files of ${sourceId} for this fork`,
    });
    const ids = (c: Checkpoint | null) => (c ? c.id : null);
    fork.state(pendingNoteSlot).set(null);
    fork.state(lastRewindSlot).set({ rewindId, scope: 'code', index, before: ids(before), after: ids(after), undoneTurns: [], closed: false });
    fork.emit({ type: 'rewind.done', result });
    return result;
  }

  /** Restore `target`'s files (what changed outside the turns only with `includeOutside`), recording checkpoints before and after for `sessionId`. */
  private async restoreFiles(
    store: CheckpointStoreApi,
    list: readonly Checkpoint[],
    target: Checkpoint,
    sessionId: string,
    result: RewindResult,
    options: { includeOutside: boolean; expect?: string; label: string },
  ): Promise<{ before: Checkpoint | null; after: Checkpoint | null }> {
    let before: Checkpoint | null = null;
    let after: Checkpoint | null = null;
    await store.locked(async () => {
      const plan = await this.plan(store, target);
      if (options.expect && plan.now.tree !== options.expect) {
        throw new CommandError('invalid_request', 'Files changed since the preview was made. Look at the preview again, then rewind.');
      }
      before = await this.checkpoints.recordIfNew(store, sessionId, plan.now, { kind: 'rewind', note: options.label }, true);
      const chosen = plan.changes.filter((c) => options.includeOutside || !plan.outside.has(c.path));
      result.keptOutside = plan.changes.filter((c) => !chosen.includes(c)).map((c) => c.path);
      result.problems = await store.restore(
        target.tree,
        chosen.map((c) => c.path),
      );
      const failed = new Set(result.problems.map((p) => p.path));
      for (const change of chosen) {
        if (failed.has(change.path)) continue;
        (change.status === 'added' ? result.broughtBack : change.status === 'deleted' ? result.removed : result.restored).push(change.path);
      }
      result.notCaptured = plan.skipped;
      after = await this.checkpoints.recordIfNew(store, sessionId, await store.capture(), { kind: 'rewound', note: result.rewindId }, true);
    });
    return { before, after };
  }

  /** Undo the session's last rewind: files back from the checkpoint taken just before it, and the conversation. */
  async undo(session: SessionHandle): Promise<{ rewindId: string; scope: RewindScope; problems: RestoreProblem[] }> {
    idle(session);
    const last = session.state(lastRewindSlot).get();
    if (!last) throw new CommandError('invalid_request', 'There is no rewind to undo in this session.');
    if (last.closed) throw new CommandError('invalid_request', 'A turn has run since the last rewind, so it can no longer be undone.');
    let problems: RestoreProblem[] = [];
    if (last.before && last.after) {
      const store = await this.checkpoints.require();
      const list = await store.list(session.id);
      const before = list.find((c) => c.id === last.before);
      const after = list.find((c) => c.id === last.after);
      if (!before || !after)
        throw new CommandError('not_found', 'The checkpoint taken before the rewind is gone (cleaned up), so the files cannot be put back.');
      await store.locked(async () => {
        const paths = (await store.changes(after.tree, before.tree)).map((c) => c.path);
        await this.checkpoints.recordIfNew(store, session.id, await store.capture(), { kind: 'rewind', note: `before undoing ${last.rewindId}` }, false);
        problems = await store.restore(before.tree, paths);
        await this.checkpoints.recordIfNew(store, session.id, await store.capture(), { kind: 'rewound', note: `undid ${last.rewindId}` }, false);
      });
    }
    if (last.undoneTurns.length) await session.redoUndo(last.undoneTurns);
    // No turn has run since the rewind, so the model never read about it: with the files back, there is nothing to tell.
    session.state(pendingNoteSlot).set(null);
    session.state(lastRewindSlot).set(null);
    session.emit({ type: 'rewind.undone', rewindId: last.rewindId, scope: last.scope, problems });
    return { rewindId: last.rewindId, scope: last.scope, problems };
  }

  /** What restoring `target` would change now. Call holding the store's lock. */
  private async plan(store: CheckpointStoreApi, target: Checkpoint): Promise<Plan> {
    // Listed again under the lock: a checkpoint that was being taken as this was asked for (a task's, waiting for the file
    // watcher's fence) is in it, so what it holds is not taken for a change made outside.
    const list = await store.list(target.session);
    const now = await store.capture();
    const all = await store.changes(now.tree, target.tree, true);
    // A file left out then or now cannot be restored faithfully: it is reported and left as it is.
    const skippedThen = new Map(target.skipped.map((s) => [s.path, s]));
    const skippedNow = new Map(now.skipped.map((s) => [s.path, s]));
    const uncertain = new Map<string, SkippedFileInfo>();
    for (const [path, file] of [...skippedThen, ...skippedNow]) {
      const other = skippedThen.get(path) && skippedNow.get(path);
      const same = other && skippedThen.get(path)!.size === skippedNow.get(path)!.size && skippedThen.get(path)!.reason === skippedNow.get(path)!.reason;
      if (!same) uncertain.set(path, file);
    }
    const changes = all.filter((c) => !uncertain.has(c.path));
    const later = list.filter((c) => c.seq >= target.seq);
    const outside = await changedOutside(store, later, now.tree);
    // What another session in this folder made (as the file is now) is not this session's to take back.
    const others = await changedByOthers(
      store,
      target.session,
      changes.map((c) => ({ path: c.path, blob: c.oldBlob })),
      target.at,
    );
    for (const path of others) outside.add(path);
    return { target, changes, skipped: [...uncertain.values()].sort((a, b) => a.path.localeCompare(b.path)), outside, others, now };
  }
}

function emptyResult(rewindId: string, scope: RewindScope, turnId: string, index: number): RewindResult {
  return { rewindId, scope, turnId, index, restored: [], removed: [], broughtBack: [], keptOutside: [], problems: [], notCaptured: [], undoneTurns: [] };
}

function idle(session: SessionHandle): void {
  if (session.running) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc), then rewind.');
}

function running(session: SessionHandle): Array<{ id: string; description: string }> {
  return session.tasks.list(true).map((t) => ({ id: t.id, description: t.description }));
}

function conversationPart(session: SessionHandle, turnId: string): RewindPreview['conversation'] {
  const turns = session.contextTurns();
  const at = turns.indexOf(turnId);
  if (at >= 0) return { turns: turns.length - at, possible: true };
  return {
    turns: 0,
    possible: false,
    reason:
      'The model no longer reads that turn (it was compacted into a handoff note, or already undone), so the conversation cannot go back to it. The files still can.',
  };
}

function promptIndex(list: readonly Checkpoint[], turnId: string): number {
  let index = 0;
  for (const c of list) {
    if (c.kind !== 'turn') continue;
    if (c.origin === 'user' || c.origin === 'skill' || c.origin === undefined) index++;
    if (c.turnId === turnId) return c.origin === 'user' || c.origin === 'skill' || c.origin === undefined ? index : 0;
  }
  return 0;
}

function noCheckpoint(): CommandError {
  return new CommandError(
    'not_found',
    'No checkpoint was taken before that prompt (it ran before checkpoints were on, or without git), so its files cannot be rewound. The conversation can still be.',
  );
}

function describeCounts(result: RewindResult): string {
  const parts = [
    result.restored.length ? `${result.restored.length} restored` : '',
    result.removed.length ? `${result.removed.length} removed (created after that point)` : '',
    result.broughtBack.length ? `${result.broughtBack.length} brought back (deleted after that point)` : '',
  ].filter(Boolean);
  return parts.join(', ');
}
