import { commitPending } from './merge';
import type { WorktreeMachine } from './machine';
import type { WorktreeRecord } from './records';
import { git, identity, nulList } from './run';

/** A conflict handed to the worktree: the base branch merged into its branch there, so the conflict markers are in the worktree only. */
export interface Handoff {
  /** `conflict`: files with markers in the worktree; `clean`: the base merged in without a conflict (committed there). */
  status: 'conflict' | 'clean';
  files: string[];
  /** What to tell the agent in a session in the worktree. */
  prompt: string;
  path: string;
  branch: string;
  baseBranch: string;
}

async function unmerged(m: WorktreeMachine, path: string): Promise<string[]> {
  return [...new Set(nulList((await git(m, path, ['diff', '--name-only', '-z', '--diff-filter=U'])).stdout))];
}

/** The files still conflicted when a merge is in progress in the worktree (none: resolved, not committed yet); null when none is. */
export async function mergeInProgress(m: WorktreeMachine, path: string): Promise<string[] | null> {
  const mergeHead = await git(m, path, ['rev-parse', '--verify', '--quiet', 'MERGE_HEAD'], { okCodes: [0, 1] });
  return mergeHead.exitCode === 0 ? unmerged(m, path) : null;
}

/** The prompt that hands the conflict to the agent in the worktree. */
export function handoffPrompt(record: Pick<WorktreeRecord, 'branch' | 'repoRoot'>, baseBranch: string, files: readonly string[]): string {
  return [
    `Merging this worktree's branch ${record.branch} onto ${baseBranch} conflicts. I merged ${baseBranch} into ${record.branch} here, in this worktree, so the conflict markers are in these files of this worktree:`,
    ...files.map((f) => `- ${f}`),
    '',
    `Resolve each conflict: keep what both sides meant (the change made here and the change on ${baseBranch}), remove every conflict marker, ` +
      'and check that the code still builds and its tests pass. Then finish the merge here with `git add` on those files and `git commit --no-edit`.',
    `Work only in this worktree: do not touch the main checkout at ${record.repoRoot}, and do not merge into ${baseBranch} yourself — I will merge this branch again once it is resolved.`,
  ].join('\n');
}

/**
 * Hand a merge conflict to the worktree: commit what it has not committed on its branch (nothing is lost), then merge
 * its base branch INTO its branch inside the worktree — the conflict markers live there, never in the main checkout,
 * whose files, index and HEAD are not touched. A merge already in progress there is reported as it is.
 */
export async function handConflictToWorktree(m: WorktreeMachine, record: WorktreeRecord): Promise<Handoff> {
  const baseBranch = record.baseBranch;
  if (!baseBranch) throw new Error(`worktree "${record.name}" was made from a commit, not a branch: there is no base branch to merge in.`);
  if (!(await m.exists(record.path))) throw new Error(`the folder of worktree "${record.name}" is gone.`);
  const result = (status: Handoff['status'], files: string[]): Handoff => ({
    status,
    files,
    prompt: handoffPrompt(record, baseBranch, files),
    path: record.path,
    branch: record.branch,
    baseBranch,
  });
  const inProgress = await mergeInProgress(m, record.path);
  if (inProgress) return result('conflict', inProgress);
  await commitPending(m, record, `Deft worktree ${record.name}: the session's changes`);
  const message = `Merge ${baseBranch} into ${record.branch} (Deft: resolve the conflict in the worktree)`;
  // A full ref, never an option: the base branch's name was checked when the worktree was made, and refs/heads/ cannot start with "-".
  const merged = await git(m, record.path, ['merge', '--no-ff', '--no-edit', '-m', message, `refs/heads/${baseBranch}`], {
    okCodes: [0, 1],
    gitEnv: await identity(m, record.path),
  });
  if (merged.exitCode === 0) return result('clean', []);
  const files = await unmerged(m, record.path);
  if (!files.length) {
    await git(m, record.path, ['merge', '--abort'], { okCodes: [0, 128] });
    throw new Error(`git could not merge ${baseBranch} into ${record.branch}: ${merged.stderr.trim().split('\n').slice(-2).join(' ')}`);
  }
  return result('conflict', files);
}
