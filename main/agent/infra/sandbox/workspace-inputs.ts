import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { commonDirOf, isGitDirectory } from '../git/repository';
import { type PlannerFs, localFs } from './planner-fs';

/**
 * The workspace's entries that decide what Deft, git or another agent does there: protected from
 * sandboxed commands whatever they are (folder, file, link — and, for some, missing).
 */
export const GUARDED_ENTRIES = ['.git', '.deft', '.claude', '.mcp.json'] as const;
export type GuardedName = (typeof GUARDED_ENTRIES)[number];

/** What one guarded entry is. */
export interface EntryState {
  kind: 'missing' | 'dir' | 'file' | 'link' | 'other';
  /** Where it leads (its real path), when it exists and resolves. */
  real?: string;
  /** For a link: whether it leads to a folder. */
  leadsToDir?: boolean;
}

/** A workspace's git folders. */
export interface GitFolders {
  gitDir: string;
  commonDir: string;
  /**
   * A linked worktree or a submodule, checked as git made it (the `.git` file names a git dir that
   * names this workspace back): its git folders live outside the workspace and commands may write them.
   */
  linked: boolean;
}

/**
 * The inputs of the sandbox's policy, read from disk. The policy takes what widens it (a linked
 * worktree's git folders) only from the reading made when the session opened, re-verified at each
 * command; it protects what either reading names.
 */
export interface WorkspaceInputs {
  /** The workspace's real path. */
  workspace: string;
  entries: Record<GuardedName, EntryState>;
  git: GitFolders | null;
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function entryState(fs: PlannerFs, path: string, held: (path: string) => boolean): EntryState {
  // A mount point another running command's guard made is not what the workspace holds.
  if (held(path)) return { kind: 'missing' };
  const info = fs.lstat(path);
  if (!info) return { kind: 'missing' };
  const resolved = fs.realpath(path) ?? undefined;
  if (info.kind === 'link') return { kind: 'link', ...(resolved ? { real: resolved, leadsToDir: fs.stat(resolved)?.kind === 'dir' } : {}) };
  const kind = info.kind === 'dir' || info.kind === 'file' ? info.kind : 'other';
  return { kind, ...(resolved ? { real: resolved } : {}) };
}

/**
 * The git folders a `.git` file leads to. They widen the policy (`linked`) only when git made them: a
 * linked worktree (its git dir is `<common>/worktrees/<name>` and its `gitdir` file names this `.git`
 * back) or a submodule (its git dir is under `.git/modules/` of a folder above the workspace, and its
 * `core.worktree` names the workspace). `gitdir: $HOME` leads to no git directory and is not followed;
 * any other git directory it names is protected, never made writable.
 */
function fileFolders(fs: PlannerFs, workspace: string, dotGit: string): GitFolders | null {
  const small = (path: string) => fs.read(path, 65_536);
  const real = (path: string) => fs.realpath(path);
  const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(small(dotGit) ?? '')?.[1];
  if (!pointer) return null;
  const gitDir = real(isAbsolute(pointer) ? pointer : resolve(workspace, pointer));
  if (!gitDir || !isGitDirectory(gitDir, fs)) return null;
  const commonDir = commonDirOf(gitDir, fs);
  if (!commonDir) return null;
  return { gitDir, commonDir, linked: !within(workspace, gitDir) && madeByGit(fs, workspace, dotGit, gitDir, commonDir) };
}

function madeByGit(fs: PlannerFs, workspace: string, dotGit: string, gitDir: string, commonDir: string): boolean {
  const small = (path: string) => fs.read(path, 65_536);
  const real = (path: string) => fs.realpath(path);
  if (commonDir !== gitDir) {
    if (real(dirname(gitDir)) !== real(join(commonDir, 'worktrees'))) return false;
    const back = small(join(gitDir, 'gitdir'))?.trim();
    return Boolean(back) && real(isAbsolute(back!) ? back! : resolve(gitDir, back!)) === real(dotGit);
  }
  const at = gitDir.indexOf(`${sep}.git${sep}modules${sep}`);
  if (at < 0 || !within(gitDir.slice(0, at), workspace)) return false;
  const worktree = /^\s*worktree\s*=\s*(.+?)\s*$/m.exec(small(join(gitDir, 'config')) ?? '')?.[1];
  return Boolean(worktree) && real(isAbsolute(worktree!) ? worktree! : resolve(gitDir, worktree!)) === workspace;
}

/** Read the workspace's guarded entries and git folders. `held`: mount points a running command's guard made. */
export function readWorkspaceInputs(workspacePath: string, held: (path: string) => boolean = () => false, fs: PlannerFs = localFs): WorkspaceInputs {
  const workspace = fs.realpath(workspacePath) ?? resolve(workspacePath);
  const entries = Object.fromEntries(GUARDED_ENTRIES.map((name) => [name, entryState(fs, join(workspace, name), held)])) as Record<GuardedName, EntryState>;
  const dotGit = entries['.git'];
  let git: GitFolders | null = null;
  if (dotGit.kind === 'file') git = fileFolders(fs, workspace, join(workspace, '.git'));
  // A git folder (or a link to one) never widens the policy. One that is no git directory (empty, or a mount
  // point another Deft's guard made) is no repository yet: it is protected whole, as a missing one is.
  else if (dotGit.real && (dotGit.kind === 'dir' || dotGit.leadsToDir) && isGitDirectory(dotGit.real, fs))
    git = { gitDir: dotGit.real, commonDir: commonDirOf(dotGit.real, fs) ?? dotGit.real, linked: false };
  return { workspace, entries, git };
}

/** Whether two readings name the same git folders. */
export function sameGit(a: GitFolders | null, b: GitFolders | null): boolean {
  return a === null ? b === null : b !== null && a.gitDir === b.gitDir && a.commonDir === b.commonDir && a.linked === b.linked;
}

/**
 * Why the workspace can no longer be sandboxed as it was opened, or null: a guarded entry that was a link
 * now leads elsewhere (or is no link). A sandboxed command cannot be stopped from replacing a link in the
 * workspace (no mount can cover a link), so what it would gain — settings or hooks read through the new
 * entry — is refused here instead: no command runs until the link is put back or the folder reopened.
 */
export function inputsChanged(opened: WorkspaceInputs, current: WorkspaceInputs): string | null {
  for (const name of GUARDED_ENTRIES) {
    const before = opened.entries[name];
    const now = current.entries[name];
    if (before.kind === 'link' && (now.kind !== 'link' || now.real !== before.real)) {
      return `${join(opened.workspace, name)} was a link to ${before.real ?? 'nothing'} when this session opened and now ${now.kind === 'missing' ? 'is gone' : now.kind === 'link' ? `leads to ${now.real ?? 'nothing'}` : `is a ${now.kind === 'dir' ? 'folder' : 'file'}`}. Deft runs no command in this workspace until it is put back or the folder is opened again.`;
    }
  }
  return null;
}

/** The git dirs of the repository's other worktrees and submodules (bounded), whose redirecting files and hooks are protected too. */
export function otherGitDirs(commonDir: string, limit = 64, fs: PlannerFs = localFs): string[] {
  const found: string[] = [];
  const list = (dir: string) => (fs.readdir(dir) ?? []).filter((d) => d.kind === 'dir');
  const stats = (path: string) => fs.lstat(path);
  for (const entry of list(join(commonDir, 'worktrees'))) if (found.length < limit) found.push(join(commonDir, 'worktrees', entry.name));
  const modules = (dir: string, depth: number) => {
    for (const entry of list(dir)) {
      if (found.length >= limit) return;
      const path = join(dir, entry.name);
      if (stats(join(path, 'HEAD'))) found.push(path);
      else if (depth < 4) modules(path, depth + 1);
      if (depth < 4 && stats(join(path, 'modules'))) modules(join(path, 'modules'), depth + 1);
    }
  };
  modules(join(commonDir, 'modules'), 0);
  return found;
}
