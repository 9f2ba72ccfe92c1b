import { isAncestor, revParse, statusPaths } from './checkout';
import type { WorktreeMachine } from './machine';
import type { WorktreeRecord } from './records';
import { git, gitText, identity, nulList } from './run';

/**
 * How merging one isolated sub-agent's work into the parent's checkout ended. Nothing but `merged` changed anything.
 * - `merged`: a commit on the checkout's branch (a merge, or one squashed commit), the checkout fast-forwarded to it;
 * - `conflict`: git could not merge `files` on its own;
 * - `nothing`: the branch has nothing the checkout's branch lacks;
 * - `dirty`: uncommitted changes in the checkout touch `files` the merge would change;
 * - `refused`: why it was not tried (a sentence).
 */
export type AgentMergeOutcome =
  | { status: 'merged'; commit: string; files: string[]; squashed: boolean }
  | { status: 'conflict'; files: string[] }
  | { status: 'nothing' }
  | { status: 'dirty'; files: string[] }
  | { status: 'refused'; reason: string };

export interface AgentMergeTarget {
  /** The parent's checkout (its top folder): the only working tree touched, and only by a fast-forward. */
  checkout: string;
  /** The branch checked out there. */
  branch: string;
  /** Where a changed file may be: the parent's workspace (a file outside it is refused, as its sandbox would). */
  workspace: string;
}

/**
 * The commit of `refs/heads/<branch>` read from the repository's own refs (run in `root`, never in a worktree whose
 * `.git` a command could rewrite); null when the branch is gone or is a symbolic ref (a branch Deft made never is).
 */
export async function branchCommit(machine: WorktreeMachine, root: string, branch: string): Promise<string | null> {
  const symbolic = await git(machine, root, ['symbolic-ref', '--quiet', `refs/heads/${branch}`], { okCodes: [0, 1, 128] });
  if (symbolic.exitCode === 0) return null;
  return revParse(machine, root, `refs/heads/${branch}^{commit}`);
}

/** The branch checked out in `checkout`, or null when it is detached. */
export async function checkedOutBranch(machine: WorktreeMachine, checkout: string): Promise<string | null> {
  const out = await git(machine, checkout, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [0, 1] });
  return out.exitCode === 0 ? out.stdout.toString('utf8').trim() || null : null;
}

/** The files `git merge-tree -z --name-only` names as conflicted (tree, names, empty, messages). */
function conflictedFiles(stdout: Buffer): string[] {
  const names: string[] = [];
  for (const part of stdout.toString('utf8').split('\0').slice(1)) {
    if (!part) break;
    names.push(part);
  }
  return [...new Set(names)];
}

const outside = (machine: WorktreeMachine, file: string, target: AgentMergeTarget) => {
  const rel = machine.path.relative(target.workspace, machine.path.join(target.checkout, file));
  return rel.startsWith('..') || machine.path.isAbsolute(rel);
};

/**
 * Merge `commit` (the one Deft recorded when the sub-agent finished, never what a ref says now) into the branch of
 * the parent's checkout. The merge is computed without touching any checkout (`git merge-tree`): a conflict, a
 * dirty file or a refusal changes nothing. A clean result is committed and the checkout fast-forwarded to it (git
 * refuses rather than overwrite anything there: then nothing changed either).
 */
export async function mergeAgentCommit(
  machine: WorktreeMachine,
  record: Pick<WorktreeRecord, 'name' | 'branch'>,
  commit: string,
  target: AgentMergeTarget,
  options: { squash: boolean; message?: string },
): Promise<AgentMergeOutcome> {
  const { checkout } = target;
  const baseTip = await branchCommit(machine, checkout, target.branch);
  if (!baseTip) return { status: 'refused', reason: `the branch "${target.branch}" of your checkout cannot be read.` };
  if (!(await revParse(machine, checkout, `${commit}^{commit}`)))
    return { status: 'refused', reason: `its commit ${commit.slice(0, 12)} is no longer in the repository.` };
  if (await isAncestor(machine, checkout, commit, baseTip)) return { status: 'nothing' };
  const merged = await git(machine, checkout, ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', baseTip, commit], { okCodes: [0, 1] });
  if (merged.exitCode === 1) return { status: 'conflict', files: conflictedFiles(merged.stdout) };
  const tree = merged.stdout.toString('utf8').split('\0')[0]!.trim();
  const files = nulList((await git(machine, checkout, ['diff', '--name-only', '-z', '--no-renames', baseTip, tree])).stdout);
  if (!files.length) return { status: 'nothing' };
  const away = files.filter((f) => outside(machine, f, target));
  if (away.length)
    return { status: 'refused', reason: `it changes files outside your workspace (${away.slice(0, 5).join(', ')}), which this session may not write.` };
  const pending = new Set(await statusPaths(machine, checkout));
  const dirty = files.filter((f) => pending.has(f));
  if (dirty.length) return { status: 'dirty', files: dirty };
  const squashed = options.squash;
  const message =
    options.message?.trim() ||
    (squashed ? `${record.name}: the work of Deft sub-agent branch ${record.branch}` : `Merge branch '${record.branch}' (Deft sub-agent)`);
  const parents = squashed ? ['-p', baseTip] : ['-p', baseTip, '-p', commit];
  // The message on standard input: never an argument git could read as an option.
  const made = await gitText(machine, checkout, ['commit-tree', ...parents, '-F', '-', tree], {
    gitEnv: await identity(machine, checkout),
    input: Buffer.from(message, 'utf8'),
  });
  const moved = await git(machine, checkout, ['merge', '--ff-only', '--quiet', '--no-stat', '--no-verify', made], { okCodes: [0, 1, 128] });
  if (moved.exitCode !== 0)
    return {
      status: 'refused',
      reason: `git would not update your checkout (${moved.stderr.trim().split('\n').slice(-2).join(' ') || 'no reason given'}); nothing changed.`,
    };
  return { status: 'merged', commit: made, files, squashed };
}
