import { dirname, join, sep } from 'node:path';
import { type PlannerFs, canonicalIn, kindIn, localFs } from './planner-fs';
import { type GitFolders, GUARDED_ENTRIES, type WorkspaceInputs, otherGitDirs, readWorkspaceInputs, sameGit } from './workspace-inputs';
import { secretMasks } from './secret-masks';

/** A path the sandbox keeps from a command, and whether it is a folder. */
export interface PolicyPath {
  path: string;
  dir: boolean;
  /** Missing today: the sandbox must stop it being created (a mount point made for the command's lifetime). */
  missing?: boolean;
  /**
   * A missing file whose mount point must hold this text rather than be empty (`.git/commondir`: git
   * cannot read an empty one, and the host's git sees the mount point while the command runs).
   */
  placeholder?: string;
}

/** What a missing `.git/commondir` is made to hold while commands run: the git dir itself, as if there were none. */
export const COMMONDIR_PLACEHOLDER = '.\n';

/**
 * What a command may touch, as plain lists both sandboxes render (bubblewrap mounts, Seatbelt rules):
 * writes only under `writeRoots`, never to `denyWrite` (checked after the roots, so a deny inside a root
 * wins); reads everywhere except `denyRead`. `pins` are folders that must not be renamed or removed (the
 * `.git` folder: renaming it would let a command put a repository with its own hooks in its place).
 */
export interface FilesystemPolicy {
  writeRoots: string[];
  /** Every protected place, inside a write root or not (for telling the user why a write was refused). */
  protectedPaths: string[];
  denyWrite: PolicyPath[];
  denyRead: PolicyPath[];
  pins: string[];
}

/**
 * A git worktree Deft made (an isolated sub-agent's), as Deft recorded it when it made it — never as the
 * worktree's `.git` file says now. What git needs to commit there becomes writable, and no more of the
 * repository: its git dir (`<common>/worktrees/<id>`), the object store, and the folders of its branch's ref and
 * reflog (`refs/heads/deft/`, shared by Deft's branches). The main checkout, its index, HEAD, config, hooks and
 * other branches stay read-only.
 */
export interface RecordedWorktree {
  gitDir: string;
  commonDir: string;
  branch: string;
}

export interface PolicyInput {
  workspace: string;
  /** Deft's home (~/.deft): never writable, its secrets never readable. */
  deftHome: string;
  userHome: string;
  tmpDir: string;
  allowWrite: readonly string[];
  denyWrite: readonly string[];
  denyRead: readonly string[];
  /** The workspace's inputs when the session opened and now (both read now when not given). */
  inputs?: { opened: WorkspaceInputs; current: WorkspaceInputs };
  /** The workspace is a worktree Deft made: its git folders come from here, not from its `.git` file. */
  recorded?: RecordedWorktree;
  /** The file system of the machine the workspace is on (default: this one). */
  fs?: PlannerFs;
}

/** The folder of the ref `<base>/<branch>` when it lies strictly below `<base>` (a branch with a `/`); else null. */
function branchFolder(base: string, branch: string): string | null {
  if (!branch || branch.split('/').some((part) => !part || part === '.' || part === '..')) return null;
  const folder = dirname(join(base, branch));
  return folder !== base && isWithin(base, folder) ? folder : null;
}

/** What git writes for a commit in a recorded worktree (existing folders only, real paths). */
function recordedRoots(disk: Disk, recorded: RecordedWorktree): string[] {
  const { gitDir, commonDir, branch } = recorded;
  const candidates = [
    gitDir,
    join(commonDir, 'objects'),
    branchFolder(join(commonDir, 'refs', 'heads'), branch),
    branchFolder(join(commonDir, 'logs', 'refs', 'heads'), branch),
  ];
  return candidates.filter((p): p is string => p !== null && disk.kindOf(p) === 'dir').map(disk.real);
}

function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The machine's file system as the planner reads it: kinds, real paths and Deft's placeholders. */
interface Disk {
  fs: PlannerFs;
  kindOf: (path: string) => 'dir' | 'file' | null;
  real: (path: string) => string;
}

function diskOf(fs: PlannerFs): Disk {
  return { fs, kindOf: (path) => kindIn(fs, path), real: (path) => canonicalIn(fs, path) };
}

function isPlaceholder(disk: Disk, path: string): boolean {
  return disk.fs.lstat(path)?.kind === 'file' && disk.fs.read(path, 64) === COMMONDIR_PLACEHOLDER;
}

function guard(path: string, dir: boolean, extra: Partial<PolicyPath> = {}): PolicyPath {
  return { path, dir, ...extra };
}

/** What protects one git dir: its hooks, config and the files that redirect git (commondir, config.worktree, gitdir), missing or not. */
function gitDirGuards(disk: Disk, gitDir: string, full: boolean): PolicyPath[] {
  const { kindOf, real: realOrIntended } = disk;
  const guards: PolicyPath[] = [];
  const hooks = join(gitDir, 'hooks');
  if (kindOf(hooks)) guards.push(guard(realOrIntended(hooks), true));
  else if (full) guards.push(guard(hooks, true, { missing: true }));
  const config = join(gitDir, 'config');
  if (kindOf(config)) guards.push(guard(realOrIntended(config), false));
  else if (full) guards.push(guard(config, false, { missing: true }));
  const commondir = join(gitDir, 'commondir');
  // A placeholder is Deft's own mount point (or one a Deft that died left): missing, for what follows.
  if (kindOf(commondir) && !isPlaceholder(disk, commondir)) guards.push(guard(realOrIntended(commondir), false));
  else if (full || kindOf(commondir)) guards.push(guard(commondir, false, { missing: true, placeholder: COMMONDIR_PLACEHOLDER }));
  for (const name of ['config.worktree', 'gitdir']) if (kindOf(join(gitDir, name))) guards.push(guard(realOrIntended(join(gitDir, name)), false));
  return guards;
}

/** Every protected place one reading of the workspace names: its guarded entries (and where links lead) and its git folders. */
function inputGuards(disk: Disk, inputs: WorkspaceInputs): PolicyPath[] {
  const guards: PolicyPath[] = [];
  for (const name of GUARDED_ENTRIES) {
    const state = inputs.entries[name];
    const path = join(inputs.workspace, name);
    if (state.kind === 'missing') {
      // Creating .git (a repository with its own config), .deft or .claude (settings, hooks, agents) is refused.
      if (name !== '.mcp.json') guards.push(guard(path, true, { missing: true }));
    } else if (name === '.git' && inputs.git && (state.kind === 'dir' || state.leadsToDir)) {
      // A git folder stays writable for git (commits, the index); it is pinned, and its hooks and config are guarded below.
    } else if (state.real) guards.push(guard(state.real, state.kind === 'dir' || state.leadsToDir === true));
  }
  const git: GitFolders | null = inputs.git;
  if (git) {
    guards.push(...gitDirGuards(disk, git.gitDir, true));
    if (git.commonDir !== git.gitDir) guards.push(...gitDirGuards(disk, git.commonDir, true));
    for (const other of otherGitDirs(git.commonDir, 64, disk.fs)) if (other !== git.gitDir) guards.push(...gitDirGuards(disk, other, false));
  }
  return guards;
}

/**
 * The policy for one command. Writable: the workspace, the session's temp folder, the folders the user
 * added, and for a linked worktree (or submodule) checked when the session opened and unchanged since, its
 * repository's git folders. Never writable: the workspace's `.git` (folder, file or link; created when
 * missing), its git dirs' hooks, config, `commondir`, `config.worktree` and `gitdir`, `.deft/`, `.claude/`
 * and `.mcp.json` (links protected where they lead), Deft's home, the user's `denyWrite`. Never readable:
 * the secrets of the one list (credential stores, agent tokens, shell histories, browser profiles, keyrings…),
 * Deft's secrets, checkpoint stores and other workspaces' sessions, the user's `denyRead`. What widens the policy is taken only from
 * the reading made when the session opened, never from what a command may have written since.
 */
export function filesystemPolicy(input: PolicyInput): FilesystemPolicy {
  const disk = diskOf(input.fs ?? localFs);
  const { kindOf, real: realOrIntended } = disk;
  const workspace = realOrIntended(input.workspace);
  const writeRoots = [workspace, realOrIntended(input.tmpDir), ...input.allowWrite.map(realOrIntended).filter((p) => kindOf(p))];
  const { opened, current } =
    input.inputs ??
    (() => {
      const now = readWorkspaceInputs(workspace, undefined, disk.fs);
      return { opened: now, current: now };
    })();
  const pins: string[] = [];
  const recorded = input.recorded;
  // A worktree Deft made: git's folders from Deft's record only (what any reading of its `.git` names is guarded below).
  if (recorded) writeRoots.push(...recordedRoots(disk, recorded));
  else if (opened.git?.linked && sameGit(opened.git, current.git)) writeRoots.push(opened.git.gitDir, opened.git.commonDir);
  const recordedGit: GitFolders | null = recorded ? { gitDir: recorded.gitDir, commonDir: recorded.commonDir, linked: true } : null;
  for (const git of [opened.git, current.git, recordedGit]) {
    if (!git) continue;
    pins.push(git.commonDir);
    if (git.gitDir !== git.commonDir) pins.push(git.gitDir);
  }
  const seen = new Set<string>();
  const denyWrite: PolicyPath[] = [];
  const add = (entry: PolicyPath) => {
    if (seen.has(entry.path)) return;
    seen.add(entry.path);
    denyWrite.push(entry);
  };
  // What is there now first; of what was there at the opening, only what still exists (it is bound as it is).
  for (const entry of inputGuards(disk, current)) add(entry);
  for (const entry of inputGuards(disk, opened)) if (entry.missing || kindOf(entry.path)) add(entry);
  if (recordedGit) {
    for (const entry of inputGuards(disk, { ...opened, git: recordedGit })) if (entry.missing || kindOf(entry.path)) add(entry);
    // Its git dir is writable as a whole: a `config.worktree` made there would be config (with extensions.worktreeConfig).
    const worktreeConfig = join(recordedGit.gitDir, 'config.worktree');
    if (!kindOf(worktreeConfig)) add(guard(worktreeConfig, false, { missing: true }));
  }
  const deftHome = realOrIntended(input.deftHome);
  if (kindOf(deftHome)) add({ path: deftHome, dir: true });
  for (const path of input.denyWrite) {
    const real = realOrIntended(path);
    const kind = kindOf(real);
    if (kind) add({ path: real, dir: kind === 'dir' });
  }
  const denyRead: PolicyPath[] = [];
  // The one list of secrets (policies/secret-places.ts), as the file tools read it too.
  denyRead.push(...secretMasks({ userHome: realOrIntended(input.userHome), deftHome, workspace }, realOrIntended, disk.fs));
  for (const path of input.denyRead) {
    const real = realOrIntended(path);
    const kind = kindOf(real);
    if (kind) denyRead.push({ path: real, dir: kind === 'dir' });
  }
  const roots = [...new Set(writeRoots)];
  // A deny only matters inside a writable root (everything else is read-only already).
  const relevant = denyWrite.filter((d) => roots.some((root) => isWithin(root, d.path)));
  return {
    writeRoots: roots,
    protectedPaths: [...denyWrite.map((d) => d.path), deftHome],
    denyWrite: relevant,
    denyRead,
    pins: [...new Set(pins)].filter((p) => roots.some((root) => isWithin(root, p))),
  };
}
