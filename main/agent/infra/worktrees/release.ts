import type { WorktreeMachine } from './machine';
import { Worktrees } from './worktrees';

/** What became of a deleted session's worktree. */
export interface Released {
  name: string;
  branch: string;
  /** Its folder (where a kept worktree's changes are). */
  path?: string;
  removed: boolean;
  /** Why it was kept, or what was removed: a sentence for the user. */
  reason: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * After a session in a Deft worktree was deleted: remove the worktree and its branch when nothing would be lost —
 * no other session in it, no uncommitted change, no commit its base lacks (merged, or never committed to). Anything
 * else keeps it, and says why. Never throws: a failure keeps the worktree.
 */
export async function releaseSessionWorktree(
  home: string,
  worktree: { name: string; branch: string; repoRoot: string },
  /** The machine it is on when not this one (a remote folder's: git there, through its Environment). */
  machine?: () => Promise<WorktreeMachine | null>,
): Promise<Released> {
  const keptAs = (reason: string): Released => ({ name: worktree.name, branch: worktree.branch, removed: false, reason });
  try {
    const there = machine ? await machine() : null;
    if (machine && !there) return keptAs(`Its worktree ${worktree.branch} is kept: the machine it is on cannot be reached.`);
    const trees = await Worktrees.of(home, worktree.repoRoot, there ?? undefined);
    const state = await trees.state(worktree.name);
    const path = { path: state.path };
    const kept = (reason: string): Released => ({ name: worktree.name, branch: worktree.branch, ...path, removed: false, reason });
    if (state.state === 'missing') return kept(`Its worktree's folder is already gone; deft worktrees cleanup forgets it.`);
    if (state.sessions.length > 0) return kept(`Its worktree ${state.branch} is kept: ${plural(state.sessions.length, 'other session')} ran there.`);
    if (state.dirty)
      return kept(
        `Its worktree ${state.branch} is kept: it has uncommitted changes (${plural(state.changedFiles.length, 'changed file')}). Merge, apply or discard it in Worktrees.`,
      );
    if (state.ahead > 0)
      return kept(
        `Its worktree ${state.branch} is kept: its branch has ${plural(state.ahead, 'commit')} ${state.baseBranch ?? 'its base'} does not. Merge it, or discard it in Worktrees.`,
      );
    const { branchDeleted } = await trees.discard(worktree.name, { deleteBranch: true });
    return {
      name: worktree.name,
      branch: worktree.branch,
      ...path,
      removed: true,
      reason: `Its worktree ${state.branch} had nothing left to merge: it was removed${branchDeleted ? ' with its branch' : ''}.`,
    };
  } catch (error) {
    return keptAs(`Its worktree ${worktree.branch} is kept: ${(error as Error).message}`);
  }
}
