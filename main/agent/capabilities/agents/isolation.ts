import type { CoreContext } from '#contract/capability';
import { worktreeCopyGlobs } from '#infra/worktrees/settings';
import { type Released, releaseSessionWorktree } from '#infra/worktrees/release';
import type { Worktrees } from '#infra/worktrees/worktrees';
import { worktreesOf } from '#infra/worktrees/there';
import { branchCommit } from '#infra/worktrees/agent-merge';
import { git, nulList } from '#infra/worktrees/run';
import { MERGE_AGENT_WORK_TOOL } from './tools/names';

/** How a sub-agent is isolated: `worktree`, its own git worktree on a new branch. */
export type Isolation = 'worktree';

/** The worktree an isolated sub-agent works in. */
export interface IsolatedTree {
  name: string;
  branch: string;
  path: string;
  baseBranch: string | null;
  /** Its git folders as Deft recorded them when it made it (what its OS sandbox lets git write). */
  gitDir?: string;
  commonDir?: string;
}

/** What the parent is told of an isolated sub-agent's worktree when it has finished. */
export interface WorktreeReport extends IsolatedTree {
  /** Files its branch changed since the worktree was made. */
  changedFiles: string[];
  /** Why its changes could not be committed on its branch (they stay in the worktree). */
  commitError?: string;
  /** The commit its branch had when it finished, recorded for MergeAgentWork (absent when it could not be read). */
  commit?: string;
}

/** The worktrees of the workspace's repository, on the machine the workspace is on (a remote folder's: there). */
export const workspaceWorktrees = (core: CoreContext): Promise<Worktrees> => worktreesOf(core.home, core.place);

/**
 * A new worktree for a sub-agent (branch `deft/<name>` from the main checkout's HEAD, `worktree.copy` files copied
 * in), on the machine the workspace is on. Throws a readable error outside a git repository.
 */
export async function openIsolation(core: CoreContext, hint: string, sessionId: string): Promise<IsolatedTree> {
  let repo: Worktrees;
  try {
    repo = await workspaceWorktrees(core);
  } catch (error) {
    throw new Error(`isolation "worktree" needs a git repository, and the workspace is not in one (${(error as Error).message}). Run it without isolation.`, {
      cause: error,
    });
  }
  const created = await repo.create({ hint: `agent ${hint}`, copy: await worktreeCopyGlobs(core.home, repo.repoRoot), session: sessionId });
  const { name, branch, path, baseBranch, gitDir, commonDir } = created.record;
  return { name, branch, path, baseBranch, ...(gitDir ? { gitDir } : {}), ...(commonDir ? { commonDir } : {}) };
}

/** Commit what the sub-agent changed on its branch, and say what that branch changed. Never rejects. */
export async function closeIsolation(core: CoreContext, tree: IsolatedTree, message: string): Promise<WorktreeReport> {
  let commitError: string | undefined;
  let changedFiles: string[] = [];
  let commit: string | null = null;
  try {
    const repo = await workspaceWorktrees(core);
    await repo.commit(tree.name, message).catch((error: Error) => {
      commitError = error.message;
    });
    commit = await pinWork(repo, tree.name);
    // What the parent is told it would merge: the recorded commit's files, read from the repository (uncommitted
    // changes too when committing failed).
    changedFiles = commit && !commitError ? await filesOf(repo, tree.name, commit) : (await repo.state(tree.name)).changedFiles;
  } catch (error) {
    commitError ??= (error as Error).message;
  }
  return { ...tree, changedFiles, ...(commitError ? { commitError } : {}), ...(commit ? { commit } : {}) };
}

/**
 * Record in Deft's own record of the worktree the commit its branch has now that the sub-agent has finished, read from
 * the repository's refs (not through the worktree's `.git`): MergeAgentWork merges that commit and nothing else.
 */
async function pinWork(repo: Worktrees, name: string): Promise<string | null> {
  const record = await repo.records.read(name);
  if (!record) return null;
  const commit = await branchCommit(repo.machine, repo.repoRoot, record.branch);
  if (!commit) return null;
  await repo.records.write({ ...record, agentTip: commit });
  return commit;
}

async function filesOf(repo: Worktrees, name: string, commit: string): Promise<string[]> {
  const record = await repo.get(name);
  return nulList((await git(repo.machine, repo.repoRoot, ['diff', '--name-only', '-z', '--no-renames', record.baseCommit, commit])).stdout).sort();
}

/**
 * After a session was deleted: the worktrees made for its isolated sub-agents go when nothing would be lost (as a
 * worktree session's: nothing uncommitted, no commit its base lacks — so unmerged work stays, for the user to merge
 * or discard). Never throws.
 */
export async function releaseIsolations(core: CoreContext, sessionId: string): Promise<Released[]> {
  try {
    const repo = await workspaceWorktrees(core);
    const made = (await repo.records.list()).filter((record) => record.session === sessionId);
    const released: Released[] = [];
    for (const record of made) released.push(await releaseSessionWorktree(core.home, record, async () => repo.machine));
    return released;
  } catch {
    return [];
  }
}

/** The lines of a tool result about an isolated sub-agent's worktree. */
export function worktreeLines(report: WorktreeReport): string[] {
  const files = report.changedFiles;
  return [
    `worktree: ${report.name}`,
    `worktree_path: ${report.path}`,
    `branch: ${report.branch}${report.baseBranch ? ` (from ${report.baseBranch})` : ''}`,
    `changed_files: ${files.length ? files.join(', ') : '(none)'}`,
    ...(report.commit ? [`commit: ${report.commit}`] : []),
    ...(report.commitError ? [`commit_error: its changes could not be committed on its branch (${report.commitError}); they are in the worktree.`] : []),
    files.length
      ? `merge_hint: nothing reached your checkout yet. Merge it with ${MERGE_AGENT_WORK_TOOL} (worktrees: ["${report.name}"]; several in one call, in order), or the user does: deft worktrees merge ${report.name} (or apply / discard).`
      : `merge_hint: it changed nothing; deft worktrees discard ${report.name} --delete-branch removes it.`,
  ];
}
