import type { ReviewChanges, ReviewFile } from '#protocol';
import { CommandError } from '#contract/errors';
import type { SessionHandle } from '#contract/capability';
import { writeFileAtomic } from '#infra/platform/files';
import { revertHunk } from '#infra/text/apply-hunks';
import { diffTexts } from '#infra/text/diff-hunks';
import { asText, blobDiff } from './file-diffs';
import { changedByOthers, turnCheckpoint, turnEndCheckpoint } from './history';
import { unsafePath } from './store/restore';
import type { Checkpoint } from './store/store';
import type { CheckpointStoreApi } from './store/store-api';
import type { WorkspaceCheckpoints } from './workspace';

/** git's id of no object: what a deleted file's side of a change holds. */
const ZERO_BLOB = '0'.repeat(40);

/** Files the review pane lists at most, and diff lines it carries in all. */
const MAX_FILES = 300;
const LINE_BUDGET = 30_000;

interface Range {
  from: Checkpoint;
  /** The tree at the end of the range; `now` when the range runs up to the workspace as it is. */
  to: string;
  now: string;
  /** The session's checkpoints after the end of the range (a turn's; none for the session). */
  later: Checkpoint[];
  /** When the range ends (its end checkpoint's time; the largest number when it runs up to now). */
  until: number;
}

/**
 * The review pane: every file a turn (or the whole session so far) changed, with its diff, from the
 * checkpoints — so changes made by shell commands count too — and reverting a file or one hunk to how it
 * was before, each revert undoable (a checkpoint is taken just before it).
 */
export class ReviewPane {
  constructor(private readonly checkpoints: WorkspaceCheckpoints) {}

  async changes(session: SessionHandle, turnId: string | undefined): Promise<ReviewChanges> {
    const store = await this.checkpoints.require();
    const range = await store.locked(async () => this.range(store, session, turnId));
    const turnChanges = await store.changes(range.from.tree, range.to, true);
    const later = range.to === range.now ? new Set<string>() : new Set((await store.changes(range.to, range.now)).map((c) => c.path));
    // What the turn changed and a revert took back (in part or whole) is shown as it is now: what remains.
    const reverted = await onlyRevertedSince(store, range, new Set(turnChanges.map((c) => c.path).filter((p) => later.has(p))));
    const current = reverted.size ? new Map((await store.changes(range.from.tree, range.now, true)).map((c) => [c.path, c])) : null;
    const all = turnChanges.flatMap((change) => (reverted.has(change.path) ? (current!.has(change.path) ? [current!.get(change.path)!] : []) : [change]));
    // What another session in this folder made is listed as its, and never reverted as this session's.
    const others = await changedByOthers(
      store,
      session.id,
      all.map((c) => ({ path: c.path, blob: c.newBlob })),
      range.from.at,
      range.until,
    );
    let budget = LINE_BUDGET;
    const files: ReviewFile[] = [];
    for (const change of all.slice(0, MAX_FILES)) {
      const diff = await blobDiff(store, change.oldBlob, change.newBlob, Math.max(0, Math.min(2_000, budget)));
      budget -= diff.hunks.reduce((n, h) => n + h.lines.length, 0);
      files.push({
        path: change.path,
        status: change.status,
        added: change.added,
        removed: change.removed,
        binary: diff.binary,
        hunks: diff.hunks,
        ...(diff.truncated ? { truncated: true } : {}),
        changedSince: later.has(change.path) && !reverted.has(change.path),
        ...(others.has(change.path) ? { otherSession: true } : {}),
      });
    }
    return { ...(turnId ? { turnId } : {}), files, more: Math.max(0, all.length - MAX_FILES) };
  }

  /** Revert `path` (or its hunk number `hunk`, as `changes` listed them) to before the range. */
  async revert(session: SessionHandle, turnId: string | undefined, path: string, hunk: number | undefined): Promise<{ revertId: string; path: string }> {
    if (session.running) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc), then revert.');
    if (unsafePath(path)) throw new CommandError('invalid_request', `"${path}" is not a path inside the workspace.`);
    const store = await this.checkpoints.require();
    return store.locked(async () => {
      const range = await this.range(store, session, turnId);
      // The hunks are numbered as `changes` listed them: after an earlier revert, against what is there now.
      const changedLater = range.to !== range.now && (await store.changes(range.to, range.now)).some((c) => c.path === path);
      const end = changedLater && (await onlyRevertedSince(store, range, new Set([path]))).has(path) ? range.now : range.to;
      const [then, after] = await Promise.all([store.entry(range.from.tree, path), store.entry(end, path)]);
      if (then?.blob === after?.blob && then?.mode === after?.mode)
        throw new CommandError('invalid_request', `${path} did not change ${turnId ? 'in that turn' : 'in this session'}.`);
      const made = [{ path, blob: after?.blob ?? ZERO_BLOB }];
      if ((await changedByOthers(store, session.id, made, range.from.at, end === range.now ? Number.MAX_SAFE_INTEGER : range.until)).size)
        throw new CommandError(
          'invalid_request',
          `${path} was changed by another session in this folder, not by this one: it is not reverted as this session's change. Revert it from that session.`,
        );
      const now = await store.capture();
      const mark = await this.checkpoints.recordIfNew(store, session.id, now, { kind: 'revert', note: path }, true);
      if (hunk === undefined) {
        const problems = await store.restore(range.from.tree, [path]);
        if (problems.length) throw new CommandError('internal', `${path} could not be reverted: ${problems[0]!.reason}.`);
      } else {
        await this.revertOneHunk(store, path, then?.blob ?? '', after?.blob ?? '', hunk);
      }
      await this.checkpoints.recordIfNew(store, session.id, await store.capture(), { kind: 'reverted', note: path }, true);
      return { revertId: mark!.id, path };
    });
  }

  /** Put a reverted file back as it was just before the revert. */
  async undoRevert(session: SessionHandle, revertId: string): Promise<{ path: string }> {
    if (session.running) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc).');
    const store = await this.checkpoints.require();
    const mark = (await store.list(session.id)).find((c) => c.id === revertId && c.kind === 'revert');
    if (!mark?.note) throw new CommandError('not_found', 'That revert is no longer known (its checkpoint was cleaned up).');
    const path = mark.note;
    await store.locked(async () => {
      // Marked always, like a revert: the review pane tells a revert's changes from others by these marks.
      await this.checkpoints.recordIfNew(store, session.id, await store.capture(), { kind: 'revert', note: path }, true);
      const problems = await store.restore(mark.tree, [path]);
      if (problems.length) throw new CommandError('internal', `${path} could not be put back: ${problems[0]!.reason}.`);
      await this.checkpoints.recordIfNew(store, session.id, await store.capture(), { kind: 'reverted', note: path }, false);
    });
    return { path };
  }

  private async revertOneHunk(store: CheckpointStoreApi, path: string, fromBlob: string, toBlob: string, index: number): Promise<void> {
    const [a, b] = await Promise.all([fromBlob ? store.blob(fromBlob) : Buffer.alloc(0), toBlob ? store.blob(toBlob) : Buffer.alloc(0)]);
    const [before, after] = [asText(a), asText(b)];
    if (before === null || after === null) throw new CommandError('invalid_request', `${path} is not a text file: revert the whole file instead.`);
    const hunk = diffTexts(before, after).hunks[index];
    if (!hunk) throw new CommandError('invalid_request', `${path} has no hunk ${index + 1}; open the review again.`);
    const environment = this.checkpoints.environment;
    const full = environment.path.join(store.places.workspace, path);
    const stats = await environment.lstat(full).catch(() => null);
    if (!stats?.isFile()) throw new CommandError('invalid_request', `${path} is no longer a file in the workspace: revert the whole file instead.`);
    const current = asText(await environment.readBytes(full));
    const reverted = current === null ? null : revertHunk(current, hunk);
    if (reverted === null)
      throw new CommandError(
        'invalid_request',
        `That part of ${path} has changed since, so the hunk no longer applies. Revert the whole file, or edit it by hand.`,
      );
    // Locally as always (atomic, its mode kept); on another machine through the Environment, which does the same.
    if (environment.kind === 'local') await writeFileAtomic(full, reverted, stats.mode & 0o7777);
    else await environment.replaceFile(full, reverted);
  }

  /** The checkpoints a review covers: a turn (start to end), or the session (first checkpoint to now). Call holding the lock. */
  private async range(store: CheckpointStoreApi, session: SessionHandle, turnId: string | undefined): Promise<Range> {
    const list = await store.list(session.id);
    const now = (await store.capture()).tree;
    if (!turnId) {
      const first = list[0];
      if (!first) throw new CommandError('not_found', 'This session has no checkpoints yet.');
      return { from: first, to: now, now, later: [], until: Number.MAX_SAFE_INTEGER };
    }
    const from = turnCheckpoint(list, turnId);
    if (!from) throw new CommandError('not_found', 'No checkpoint was taken before that turn, so its changes cannot be shown.');
    const end = turnEndCheckpoint(list, turnId);
    const to = session.running && list.at(-1)?.turnId === turnId ? now : (end?.tree ?? now);
    return {
      from,
      to,
      now,
      later: to === now || !end ? [] : list.slice(list.indexOf(end) + 1),
      until: to === now || !end ? Number.MAX_SAFE_INTEGER : end.at,
    };
  }
}

/**
 * Of `paths`, those that nothing but the review pane's reverts (and their undos) changed after the end of
 * the range. Each revert is taken between a 'revert' and a 'reverted' checkpoint and changes only its own
 * path; any other change after the range (a later turn, an edit outside Deft) shows between those marks.
 */
async function onlyRevertedSince(store: CheckpointStoreApi, range: Range, paths: ReadonlySet<string>): Promise<Set<string>> {
  const left = new Set(paths);
  if (!left.size || !range.later.some((c) => c.kind === 'revert')) return new Set();
  const drop = async (from: string, to: string, own?: string) => {
    for (const change of await store.changes(from, to)) if (change.path !== own) left.delete(change.path);
  };
  let start = range.to;
  let open: Checkpoint | null = null;
  for (const mark of range.later) {
    if (mark.kind === 'revert') {
      // (After a revert that never finished, what it did counts as any other change.)
      await drop(start, mark.tree);
      start = mark.tree;
      open = mark;
    } else if (mark.kind === 'reverted' && open) {
      await drop(start, mark.tree, open.note);
      start = mark.tree;
      open = null;
    }
  }
  await drop(start, range.now);
  return left;
}
