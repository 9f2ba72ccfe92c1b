import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { canonicalPath as realOrIntended } from '../policies/protected-paths';

/** A path the sandbox keeps from a command, and whether it is a folder. */
export interface PolicyPath {
  path: string;
  dir: boolean;
  /** Missing today: the sandbox must stop it being created (a mount point made for the command's lifetime). */
  missing?: boolean;
}

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

export interface PolicyInput {
  workspace: string;
  /** Deft's home (~/.deft): never writable, its secrets never readable. */
  deftHome: string;
  userHome: string;
  tmpDir: string;
  allowWrite: readonly string[];
  denyWrite: readonly string[];
  denyRead: readonly string[];
}

/** Credential stores in the user's home: never readable by a sandboxed command. */
export const CREDENTIAL_STORES: ReadonlyArray<{ path: string; dir: boolean }> = [
  { path: '.ssh', dir: true },
  { path: '.aws', dir: true },
  { path: '.azure', dir: true },
  { path: '.config/gcloud', dir: true },
  { path: '.kube', dir: true },
  { path: '.config/gh', dir: true },
  { path: '.gnupg', dir: true },
  { path: '.password-store', dir: true },
  { path: '.local/share/keyrings', dir: true },
  { path: '.docker/config.json', dir: false },
  { path: '.git-credentials', dir: false },
  { path: '.config/git/credentials', dir: false },
  { path: '.netrc', dir: false },
  { path: '.npmrc', dir: false },
  { path: '.pypirc', dir: false },
  { path: '.cargo/credentials.toml', dir: false },
  { path: '.cargo/credentials', dir: false },
  { path: '.terraform.d/credentials.tfrc.json', dir: false },
];

function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    return lstatSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** The git folders of a workspace: its `.git` folder, or for a worktree the folders its `.git` file names. */
function gitDirs(workspace: string): { gitDir: string; commonDir: string; linked: boolean } | null {
  const dotGit = join(workspace, '.git');
  const kind = kindOf(dotGit);
  if (kind === 'dir') return { gitDir: realpathSync(dotGit), commonDir: realpathSync(dotGit), linked: false };
  if (kind !== 'file') return null;
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (!pointer) return null;
    const gitDir = realpathSync(isAbsolute(pointer) ? pointer : resolve(workspace, pointer));
    const common = existsSync(join(gitDir, 'commondir')) ? readFileSync(join(gitDir, 'commondir'), 'utf8').trim() : '.';
    return { gitDir, commonDir: realpathSync(isAbsolute(common) ? common : resolve(gitDir, common)), linked: true };
  } catch {
    return null;
  }
}

/**
 * The policy for one command. Writable: the workspace, the session's temp folder, the folders the user
 * added, and for a worktree its repository's git folders. Never writable: `.git/hooks` and `.git/config`,
 * the workspace's `.deft/` (its settings), Deft's home, secret files at the workspace root, the user's
 * `denyWrite`. Never readable: credential stores, Deft's secrets, the user's `denyRead`.
 */
export function filesystemPolicy(input: PolicyInput): FilesystemPolicy {
  const workspace = realOrIntended(input.workspace);
  const writeRoots = [workspace, realOrIntended(input.tmpDir), ...input.allowWrite.map(realOrIntended).filter((p) => kindOf(p))];
  const denyWrite: PolicyPath[] = [];
  const pins: string[] = [];
  const git = gitDirs(workspace);
  if (git) {
    if (git.linked) writeRoots.push(git.gitDir, git.commonDir);
    pins.push(git.commonDir);
    if (git.gitDir !== git.commonDir) pins.push(git.gitDir);
    denyWrite.push({ path: join(git.commonDir, 'hooks'), dir: true, ...(kindOf(join(git.commonDir, 'hooks')) ? {} : { missing: true }) });
    for (const config of [join(git.commonDir, 'config'), join(git.gitDir, 'config.worktree')]) if (kindOf(config) === 'file') denyWrite.push({ path: realpathSync(config), dir: false });
  }
  const dotDeft = join(workspace, '.deft');
  const dotDeftKind = kindOf(dotDeft);
  if (dotDeftKind === 'dir') denyWrite.push({ path: realpathSync(dotDeft), dir: true });
  else if (dotDeftKind === null) denyWrite.push({ path: dotDeft, dir: true, missing: true });
  const deftHome = realOrIntended(input.deftHome);
  if (kindOf(deftHome)) denyWrite.push({ path: deftHome, dir: true });
  for (const path of input.denyWrite) {
    const real = realOrIntended(path);
    const kind = kindOf(real);
    if (kind) denyWrite.push({ path: real, dir: kind === 'dir' });
  }
  const denyRead: PolicyPath[] = [];
  const home = realOrIntended(input.userHome);
  for (const store of CREDENTIAL_STORES) {
    const real = realOrIntended(join(home, store.path));
    if (kindOf(real)) denyRead.push({ path: real, dir: kindOf(real) === 'dir' });
  }
  for (const name of ['secrets.json', 'secrets.safe.json']) {
    const path = join(deftHome, name);
    if (kindOf(path) === 'file') denyRead.push({ path, dir: false });
  }
  for (const path of input.denyRead) {
    const real = realOrIntended(path);
    const kind = kindOf(real);
    if (kind) denyRead.push({ path: real, dir: kind === 'dir' });
  }
  // A deny only matters inside a writable root (everything else is read-only already).
  const relevant = denyWrite.filter((d) => writeRoots.some((root) => isWithin(root, d.path)));
  return {
    writeRoots: [...new Set(writeRoots)],
    protectedPaths: [...denyWrite.map((d) => d.path), deftHome],
    denyWrite: relevant,
    denyRead,
    pins: pins.filter((p) => writeRoots.some((root) => isWithin(root, p))),
  };
}

/** Path sockets other processes listen on (from /proc/net/unix): a sandboxed command must not reach them (docker.sock, the desktop bus). */
export function listeningSockets(): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // Flags 00010000 = listening; the path is the 8th field (absent for unnamed, '@' for abstract sockets).
    const path = fields[7];
    if (fields[3] === '00010000' && path?.startsWith('/')) found.add(path);
  }
  return [...found].filter((path) => kindOf(path) === 'file');
}
