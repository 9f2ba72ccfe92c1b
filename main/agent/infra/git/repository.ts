import { type Stats, lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { type PlannerFs, localFs } from '../sandbox/planner-fs';

/**
 * Repositories as git itself recognises them, checked in-process (no git runs): what the sandbox takes
 * from a workspace's `.git` when a session opens, and where a workspace's project root is.
 */

function stats(path: string, follow = true): Stats | null {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return null;
  }
}

function text(path: string, max = 4096): string | null {
  try {
    const info = statSync(path);
    if (!info.isFile() || info.size > max) return null;
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The common dir a git dir names in its `commondir` file (a linked worktree's), or the git dir itself. */
export function commonDirOf(gitDir: string, fs: PlannerFs = localFs): string | null {
  const pointer = fs.read(join(gitDir, 'commondir'), 4096);
  if (pointer === null) return fs.lstat(join(gitDir, 'commondir')) ? null : gitDir;
  const trimmed = pointer.replace(/\n+$/, '');
  if (!trimmed) return null;
  return fs.realpath(isAbsolute(trimmed) ? trimmed : resolve(gitDir, trimmed));
}

/**
 * Whether `dir` is a git directory by git's own test (setup.c is_git_directory): HEAD names a ref or an
 * object, and the common dir has `objects/` and `refs/` folders. An empty `.git` folder is not one.
 * `fs`: the machine's file system (this one, or facts gathered on a remote one).
 */
export function isGitDirectory(dir: string, fs: PlannerFs = localFs): boolean {
  const head = fs.lstat(join(dir, 'HEAD'));
  if (!head) return false;
  if (head.kind === 'link') {
    if (!fs.read(join(dir, 'HEAD'), 1 << 20)) return false;
  } else {
    const content = fs.read(join(dir, 'HEAD'), 4096);
    if (content === null || !/^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\s*$/.test(content)) return false;
  }
  const common = commonDirOf(dir, fs);
  if (!common) return false;
  return fs.stat(join(common, 'objects'))?.kind === 'dir' && fs.stat(join(common, 'refs'))?.kind === 'dir';
}

/** The git dir a `.git` entry leads to — the folder itself, or a file's `gitdir:` line — when it is a git directory. */
export function gitDirOf(dotGit: string): string | null {
  const entry = stats(dotGit);
  if (!entry) return null;
  let gitDir: string | null;
  if (entry.isDirectory()) gitDir = real(dotGit);
  else {
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(text(dotGit) ?? '')?.[1];
    gitDir = pointer ? real(isAbsolute(pointer) ? pointer : resolve(dirname(dotGit), pointer)) : null;
  }
  return gitDir && isGitDirectory(gitDir) ? gitDir : null;
}

/** Owned by the user running Deft (git's safe.directory rule; not checked where there are no uids). */
export function ownedByUser(path: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  const info = stats(path, false);
  return info !== null && info.uid === uid;
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export interface RepositoryRootOptions {
  /** Never a root at or above this folder, unless `start` is this folder (the user's home: a repository of dotfiles is no project). */
  ceiling?: string;
}

/**
 * The top of the repository `start` is in, by git's rules: the nearest folder (`start` included) whose
 * `.git` leads to a git directory; a `.git` that does not (an empty folder, a stray file) is passed over
 * as git passes it over. The repository must be the user's (the folder and its git dir owned by them:
 * git's safe.directory) — one planted by another user in a shared folder ends the search with no root —
 * and on the same file system as `start` (git does not cross one). Null when there is none.
 */
export function findRepositoryRoot(start: string, options: RepositoryRootOptions = {}): string | null {
  const first = real(start) ?? resolve(start);
  const device = stats(first)?.dev;
  const ceiling = options.ceiling ? (real(options.ceiling) ?? resolve(options.ceiling)) : null;
  for (let dir = first; ; ) {
    if (dir !== first && ceiling && within(dir, ceiling)) return null;
    const here = stats(dir);
    if (!here || here.dev !== device) return null;
    const dotGit = join(dir, '.git');
    if (stats(dotGit, false)) {
      const gitDir = gitDirOf(dotGit);
      if (gitDir) return ownedByUser(dir) && ownedByUser(gitDir) && ownedByUser(dotGit) ? dir : null;
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * The branch checked out in the repository at `root` ("main"), or "detached at <commit>", read from its HEAD
 * file (no git runs); null when there is no repository there or HEAD says neither.
 */
export function currentBranch(root: string): string | null {
  const gitDir = gitDirOf(join(root, '.git'));
  const head = gitDir && text(join(gitDir, 'HEAD'), 1024);
  if (!head) return null;
  const ref = /^ref: refs\/heads\/([\w./+@-]{1,200})\s*$/.exec(head)?.[1];
  if (ref) return ref;
  const commit = /^([0-9a-f]{40}|[0-9a-f]{64})\s*$/.exec(head)?.[1];
  return commit ? `detached at ${commit.slice(0, 12)}` : null;
}
