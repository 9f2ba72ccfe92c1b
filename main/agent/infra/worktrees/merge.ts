import type { WorktreeApplyOutcome, WorktreeMergeOutcome } from '#protocol';
import { branchExists, isAncestor, listedWorktrees, revParse, statusPaths } from './checkout';
import type { WorktreeMachine } from './machine';
import type { WorktreeRecord } from './records';
import { git, gitText, identity, nulList } from './run';

export interface MergeOptions {
  /** One commit on the base branch instead of a merge commit. */
  squash?: boolean;
  message?: string;
  /** What the user was shown (its Changes view): refused when the branch or the files moved since. */
  expect?: WorktreeState;
}

/** The worktree moved since its diff was shown: nothing was merged. */
export class MovedError extends Error {
  override name = 'MovedError';
}

/** How a merge or an apply ended: the protocol's shapes, which the window and the CLI show as they are. */
export type MergeOutcome = WorktreeMergeOutcome;
export type ApplyOutcome = WorktreeApplyOutcome;

const intersect = (a: readonly string[], b: readonly string[]) => {
  const set = new Set(b);
  return a.filter((x) => set.has(x));
};

/** The default message of a merge: what `deft worktrees merge` uses without `--message`. */
export function defaultMergeMessage(record: Pick<WorktreeRecord, 'name' | 'branch'>, squash: boolean): string {
  return squash ? `${record.name}: changes made in Deft worktree ${record.branch}` : `Merge branch '${record.branch}' (Deft worktree)`;
}

/** A tree of everything in the worktree now, committed or not (copied files left out), made in a temporary index: its own index is not touched. */
export async function snapshotTree(m: WorktreeMachine, record: WorktreeRecord): Promise<string> {
  const own = await gitText(m, record.path, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
  // The copy keeps the index's time: git's racy-entry check compares file times with it (a same-size edit made
  // in the index's second would otherwise pass as unchanged).
  const temp = await m.tempIndex(own);
  const env = { GIT_INDEX_FILE: temp.index };
  try {
    if (!temp.copied) await git(m, record.path, ['read-tree', 'HEAD'], { gitEnv: env });
    await git(m, record.path, ['add', '-A', '--', '.'], { gitEnv: env });
    if (record.copied.length)
      await git(m, record.path, ['rm', '--cached', '-r', '-q', '--ignore-unmatch', '--', ...record.copied], { gitEnv: { ...env, GIT_LITERAL_PATHSPECS: '1' } });
    return await gitText(m, record.path, ['write-tree'], { gitEnv: env });
  } finally {
    await temp.remove();
  }
}

/**
 * `git commit-tree` with the message on standard input (`-F -`): a message — typed, or drafted by a model — is
 * never an argument git could read as an option.
 */
function commitTree(m: WorktreeMachine, cwd: string, tree: string, parents: readonly string[], message: string, env: Record<string, string>): Promise<string> {
  return gitText(m, cwd, ['commit-tree', ...parents, '-F', '-', tree], { gitEnv: env, input: Buffer.from(message, 'utf8') });
}

/** The worktree's HEAD and a snapshot of its files, taken once: what a merge commits and what it checks against what was shown. */
export interface WorktreeState {
  head: string;
  tree: string;
}

/** The worktree's HEAD and everything in it now (snapshotTree). */
export async function worktreeState(m: WorktreeMachine, record: WorktreeRecord): Promise<WorktreeState> {
  const head = await gitText(m, record.path, ['rev-parse', 'HEAD']);
  return { head, tree: await snapshotTree(m, record) };
}

/**
 * Commit what the worktree has not committed (the session's edits) on its branch: `state`'s snapshot (taken now when
 * not given), on top of `state`'s HEAD — the branch moves only if it is still there (git's compare-and-swap), so what is
 * committed is exactly the snapshot, and an edit made after it stays uncommitted in the worktree. Returns the branch's
 * tip afterwards (`state.head` when there was nothing to commit).
 */
export async function commitPending(
  m: WorktreeMachine,
  record: WorktreeRecord,
  message: string,
  state?: WorktreeState,
): Promise<{ committed: boolean; tip: string }> {
  const { head, tree } = state ?? (await worktreeState(m, record));
  const headTree = await gitText(m, record.path, ['rev-parse', `${head}^{tree}`]);
  if (tree === headTree) return { committed: false, tip: head };
  const env = await identity(m, record.path);
  const commit = await commitTree(m, record.path, tree, ['-p', head], message, env);
  // --no-deref: a branch ref rewritten into a symbolic one (`ref: refs/heads/main`) moves itself, never the branch it names.
  await git(m, record.path, ['update-ref', '--no-deref', '-m', 'deft: commit the session changes', `refs/heads/${record.branch}`, commit, head]);
  // The worktree's own index follows its new HEAD (its files are those of the commit, or newer: those stay changes).
  await git(m, record.path, ['reset', '-q', '--mixed']);
  return { committed: true, tip: commit };
}

/** The files `git merge-tree` names as conflicted (its `-z --name-only` output: tree, names, empty, messages). */
function conflictedFiles(stdout: Buffer): string[] {
  const parts = stdout.toString('utf8').split('\0');
  const names: string[] = [];
  for (const part of parts.slice(1)) {
    if (!part) break;
    names.push(part);
  }
  return [...new Set(names)];
}

/**
 * Merge the worktree's branch onto its base branch. The merge is computed without touching any checkout
 * (`git merge-tree`): a conflict changes nothing and names the files. A clean result is committed, then the
 * base branch moves to it — fast-forwarding the checkout that has it (which git refuses rather than overwrite
 * anything there), or just the branch when no checkout has it.
 */
export async function mergeWorktree(m: WorktreeMachine, record: WorktreeRecord, options: MergeOptions): Promise<MergeOutcome> {
  const baseBranch = record.baseBranch;
  if (!baseBranch) throw new Error(`worktree "${record.name}" was made from a commit, not a branch: apply it instead (deft worktrees apply ${record.name}).`);
  const root = record.repoRoot;
  if (!(await branchExists(m, root, baseBranch))) throw new Error(`its base branch "${baseBranch}" no longer exists.`);
  // One snapshot: checked against what was shown, and the very tree committed and merged — an edit the session makes
  // meanwhile is in neither (it stays in the worktree, uncommitted), so the merge brings exactly the diff shown.
  const state = await worktreeState(m, record);
  if (options.expect) refuseIfMoved(record, options.expect, state);
  const { tip } = await commitPending(m, record, options.message?.trim() || `Deft worktree ${record.name}: the session's changes`, state);
  const baseTip = (await revParse(m, root, `refs/heads/${baseBranch}`))!;
  if (await isAncestor(m, root, tip, baseTip)) return { status: 'nothing', baseBranch };
  const merged = await git(m, root, ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', baseTip, tip], { okCodes: [0, 1] });
  if (merged.exitCode === 1) return { status: 'conflict', baseBranch, files: conflictedFiles(merged.stdout) };
  const tree = merged.stdout.toString('utf8').split('\0')[0]!.trim();
  const files = nulList((await git(m, root, ['diff', '--name-only', '-z', '--no-renames', baseTip, tree])).stdout);
  // Its changes are already there (merged by squash before): a merge would only add an empty commit.
  if (!files.length) return { status: 'nothing', baseBranch };
  const checkout = (await listedWorktrees(m, root)).find((w) => w.branch === `refs/heads/${baseBranch}` && !w.prunable);
  if (checkout) {
    const dirty = intersect(files, await statusPaths(m, checkout.path));
    if (dirty.length) return { status: 'dirty', baseBranch, checkout: checkout.path, files: dirty };
  }
  const squashed = options.squash === true;
  const message = options.message?.trim() || defaultMergeMessage(record, squashed);
  const parents = squashed ? ['-p', baseTip] : ['-p', baseTip, '-p', tip];
  const commit = await commitTree(m, root, tree, parents, message, await identity(m, root));
  if (checkout) await git(m, checkout.path, ['merge', '--ff-only', '--quiet', '--no-stat', '--no-verify', commit]);
  else await git(m, root, ['update-ref', '-m', `deft: merge ${record.branch}`, `refs/heads/${baseBranch}`, commit, baseTip]);
  return { status: 'merged', commit, baseBranch, files, squashed };
}

/** Refuse (MovedError) when the worktree's HEAD or files (`now`) are not what was shown. */
function refuseIfMoved(record: WorktreeRecord, shown: WorktreeState, now: WorktreeState): void {
  const { head, tree } = now;
  if (head === shown.head && tree === shown.tree) return;
  const what = head !== shown.head ? `its branch ${record.branch} moved (${shown.head.slice(0, 10)} → ${head.slice(0, 10)})` : 'its files changed';
  throw new MovedError(`${what} since its changes were shown: nothing was merged. Look at the changes again, then merge.`);
}

const PATCH_ERROR =
  /^error: (?:patch failed: (.+):\d+|(.+): (?:does not exist in index|already exists in working directory|does not match index|No such file or directory|patch does not apply))$/gm;

/** The worktree's changes (committed or not, since where its branch and the main checkout meet) as uncommitted changes in the main checkout. */
export async function applyWorktree(m: WorktreeMachine, record: WorktreeRecord): Promise<ApplyOutcome> {
  const root = record.repoRoot;
  const tree = await snapshotTree(m, record);
  const head = await gitText(m, record.path, ['rev-parse', 'HEAD']);
  const from = (await git(m, root, ['merge-base', 'HEAD', head], { okCodes: [0, 1] })).stdout.toString('utf8').trim() || record.baseCommit;
  const files = nulList((await git(m, root, ['diff', '--name-only', '-z', '--no-renames', from, tree])).stdout);
  if (!files.length) return { status: 'nothing' };
  const dirty = intersect(files, await statusPaths(m, root));
  if (dirty.length) return { status: 'dirty', files: dirty };
  const patch = (await git(m, root, ['diff', '--binary', '--full-index', '--no-renames', from, tree])).stdout;
  // git apply is all or nothing: a patch that does not apply leaves every file as it was.
  const checked = await git(m, root, ['apply', '--check', '-'], { input: patch, okCodes: [0, 1, 128] });
  if (checked.exitCode !== 0) {
    const failed = [...checked.stderr.matchAll(PATCH_ERROR)].map((m) => m[1] ?? m[2]!).filter(Boolean);
    return { status: 'conflict', files: [...new Set(failed)], message: checked.stderr.trim().split('\n').slice(-3).join(' ') };
  }
  await git(m, root, ['apply', '-'], { input: patch });
  return { status: 'applied', files };
}
