import type { WorktreeMachine } from './machine';
import { git, nulList } from './run';

/** One worktree of a repository as `git worktree list --porcelain` reports it. */
export interface ListedWorktree {
  path: string;
  head: string | null;
  /** `refs/heads/…`, or null when detached. */
  branch: string | null;
  bare: boolean;
  prunable: boolean;
  locked: boolean;
}

export async function listedWorktrees(m: WorktreeMachine, repo: string): Promise<ListedWorktree[]> {
  const out = (await git(m, repo, ['worktree', 'list', '--porcelain', '-z'])).stdout.toString('utf8');
  const result: ListedWorktree[] = [];
  let current: ListedWorktree | null = null;
  for (const line of out.split('\0')) {
    if (!line) {
      if (current) result.push(current);
      current = null;
      continue;
    }
    const [key, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (key === 'worktree') current = { path: value, head: null, branch: null, bare: false, prunable: false, locked: false };
    else if (!current) continue;
    else if (key === 'HEAD') current.head = value;
    else if (key === 'branch') current.branch = value;
    else if (key === 'bare') current.bare = true;
    else if (key === 'prunable') current.prunable = true;
    else if (key === 'locked') current.locked = true;
  }
  if (current) result.push(current);
  return result;
}

/** The main checkout of the repository `from` is in (also from inside one of its worktrees). Throws a readable error outside one. */
export async function mainCheckout(m: WorktreeMachine, from: string): Promise<string> {
  const top = await m.repositoryRoot(from);
  const where = m.kind === 'local' ? from : `${m.label}:${from}`;
  if (!top) throw new Error(`${where} is not inside a git repository (one you own): a worktree needs one.`);
  const first = (await listedWorktrees(m, top))[0];
  if (!first || first.bare) throw new Error(`the repository of ${where} is bare: Deft makes worktrees of a repository with a main checkout.`);
  return m.realpath(first.path);
}

/** Paths of `git status` in a checkout: changed, staged, untracked (every file, not folders), renamed (both names). */
export async function statusPaths(m: WorktreeMachine, cwd: string): Promise<string[]> {
  const entries = nulList((await git(m, cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--ignore-submodules=none'])).stdout);
  return entries.map((entry) => entry.slice(3));
}

/** Whether commit `a` is an ancestor of `b`. */
export async function isAncestor(m: WorktreeMachine, cwd: string, a: string, b: string): Promise<boolean> {
  return (await git(m, cwd, ['merge-base', '--is-ancestor', a, b], { okCodes: [0, 1] })).exitCode === 0;
}

export async function revParse(m: WorktreeMachine, cwd: string, rev: string): Promise<string | null> {
  const out = await git(m, cwd, ['rev-parse', '--verify', '--quiet', '--end-of-options', rev], { okCodes: [0, 1] });
  return out.exitCode === 0 ? out.stdout.toString('utf8').trim() : null;
}

export async function branchExists(m: WorktreeMachine, cwd: string, branch: string): Promise<boolean> {
  return (await git(m, cwd, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { okCodes: [0, 1] })).exitCode === 0;
}
