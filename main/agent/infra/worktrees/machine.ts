import { constants, existsSync, realpathSync } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, open, readFile, readdir, rm, stat, utimes } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import path, { posix } from 'node:path';
import type { DirEntry, Environment, PathClass } from '#contract/environment';
import { type GitCall, type GitResult, runGit } from '../git/git';
import { runGitThere } from '../git/git-there';
import { findRepositoryRoot } from '../git/repository';
import { findRepositoryRootThere } from '../git/repository-there';
import { writeFileAtomic } from '../platform/files';

/** What a look at one path tells (no link followed). */
export interface Entry {
  kind: 'file' | 'dir' | 'link' | 'other';
  size: number;
  mode: number;
}

/**
 * The machine a repository's worktrees are made on, and everything the worktree code does there: git (Deft's hardened
 * git, the same argv on both), and the few file operations of records, the `worktree.copy` files and the snapshot's
 * temporary index. Two implementations: this machine (`localMachine`: node's file system, runGit) and a workspace's
 * Environment on another machine (`environmentMachine`: git run there through its exec, files through it too). The
 * worktree code is written once against this.
 */
export interface WorktreeMachine {
  readonly kind: 'local' | 'ssh';
  /** `local`, or `user@host` — for messages. */
  readonly label: string;
  readonly path: PathClass;
  /** The Environment of another machine (absent here). */
  readonly environment?: Environment;
  /** The user's home there (its `~/.gitconfig` read as data for authorship). */
  readonly userHome: string;
  /** Deft's folder there, under which `worktrees/` is (this machine: Deft's home; another: `~/.deft` there). */
  readonly deftFolder: string;
  /** The key sessions of folder `path` there are kept under on this machine (its path here; `ssh://…` there). */
  sessionKey(path: string): string;
  /** Deft's hardened git, run there. */
  runGit(call: GitCall): Promise<GitResult>;
  /** The top of the repository `from` is in, by git's rules (never above the home folder there). */
  repositoryRoot(from: string): Promise<string | null>;
  exists(path: string): Promise<boolean>;
  /** The real path, or `path` itself when it cannot be resolved. */
  realpath(path: string): Promise<string>;
  look(path: string): Promise<Entry | null>;
  readdir(path: string): Promise<DirEntry[]>;
  /** A small text file, or null when it cannot be read. */
  readText(path: string): Promise<string | null>;
  /** Written whole and atomically, owner-only. */
  writeText(path: string, text: string): Promise<void>;
  mkdir(path: string, mode?: number): Promise<void>;
  rm(path: string, options?: { recursive?: boolean }): Promise<void>;
  /**
   * Copy a regular file (never a link, nothing over `maxBytes`) to a path that must not exist yet (never through a
   * link or over a file). Null when copied, else why not.
   */
  copyNew(source: string, target: string, maxBytes: number): Promise<string | null>;
  /**
   * A private temporary folder there holding a copy of `file` as `index` (its times kept: git's racy-entry check
   * compares them), or an empty one when `file` cannot be copied (`copied` false). `remove` takes it away.
   */
  tempIndex(file: string): Promise<{ index: string; copied: boolean; remove(): Promise<void> }>;
}

const kindOf = (info: { isSymbolicLink(): boolean; isDirectory(): boolean; isFile(): boolean }): Entry['kind'] =>
  info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : info.isFile() ? 'file' : 'other';

/** This machine: node's file system and runGit. */
export function localMachine(home: string): WorktreeMachine {
  return {
    kind: 'local',
    label: 'local',
    path,
    userHome: homedir(),
    deftFolder: home,
    sessionKey: (p) => p,
    runGit,
    repositoryRoot: async (from) => findRepositoryRoot(from),
    exists: async (p) => existsSync(p),
    realpath: async (p) => {
      try {
        return realpathSync(p);
      } catch {
        return p;
      }
    },
    look: async (p) => {
      const info = await lstat(p).catch(() => null);
      return info ? { kind: kindOf(info), size: info.size, mode: info.mode } : null;
    },
    readdir: async (p) =>
      (await readdir(p, { withFileTypes: true })).map((e) => ({
        name: e.name,
        type: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'directory' : e.isFile() ? 'file' : 'other',
      })),
    readText: (p) => readFile(p, 'utf8').catch(() => null),
    writeText: (p, text) => writeFileAtomic(p, text, 0o600),
    mkdir: async (p, mode = 0o700) => void (await mkdir(p, { recursive: true, mode })),
    rm: (p, options = {}) => rm(p, { recursive: options.recursive === true, force: true }),
    copyNew: copyLocal,
    tempIndex: async (file) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'deft-wt-index-'));
      const index = path.join(dir, 'index');
      const copied = await copyFile(file, index).then(
        async () => {
          const { atime, mtime } = await stat(file);
          await utimes(index, atime, mtime);
          return true;
        },
        () => false,
      );
      return { index, copied, remove: () => rm(dir, { recursive: true, force: true }) };
    },
  };
}

async function copyLocal(source: string, target: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return 'cannot be read (or is a link)';
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return 'not a regular file';
    if (info.size > maxBytes) return `larger than ${maxBytes / 1024 / 1024} MiB`;
    const data = await handle.readFile();
    await mkdir(path.dirname(target), { recursive: true });
    // 'wx': never through a link or over a file the checkout already has.
    const out = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, info.mode & 0o777);
    try {
      await out.writeFile(data);
    } finally {
      await out.close();
    }
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'the worktree already has it' : `could not be copied: ${(error as Error).message}`;
  } finally {
    await handle.close();
  }
}

/** A small script there: its standard output, or null when it failed. */
async function scriptThere(environment: Environment, text: string, args: readonly string[]): Promise<string | null> {
  if (environment.runScript) {
    const ran = await environment.runScript({ script: text, args, cwd: '/' }).catch(() => null);
    if (ran) return ran.code === 0 ? ran.stdout.toString('utf8') : null;
  }
  const child = environment.exec({ file: 'sh', args: ['-c', text, 'deft-worktrees', ...args], cwd: '/' });
  const out: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.resume();
  const exit = await child.exit;
  return exit.code === 0 ? Buffer.concat(out).toString('utf8') : null;
}

/**
 * A folder on another machine, through its Environment: git run there (runGitThere: the same hardening), files read
 * and written there (SFTP), Deft's folder there `~/.deft`. `sessionKey` turns a path there into the key its sessions
 * are kept under here (the remote folder id).
 */
export function environmentMachine(
  environment: Environment,
  sessionKey: (path: string) => string,
  deftFolder = posix.join(environment.home, '.deft'),
): WorktreeMachine {
  const missing = async <T>(work: Promise<T>): Promise<T | null> => work.catch(() => null);
  return {
    kind: 'ssh',
    label: environment.label,
    path: posix,
    environment,
    userHome: environment.home,
    deftFolder,
    sessionKey,
    runGit: (call) => runGitThere(environment, call),
    repositoryRoot: (from) => findRepositoryRootThere(environment, from),
    exists: async (p) => (await missing(environment.lstat(p))) !== null,
    realpath: async (p) => (await missing(environment.realpath(p))) ?? p,
    look: async (p) => {
      const info = await missing(environment.lstat(p));
      return info ? { kind: kindOf(info), size: info.size, mode: info.mode } : null;
    },
    readdir: (p) => environment.readdir(p),
    readText: (p) => missing(environment.readText(p)),
    writeText: async (p, text) => {
      // A new file made owner-only first: the atomic replace keeps an existing file's mode.
      if (!(await missing(environment.lstat(p)))) await environment.writeFile(p, '', { flag: 'wx', mode: 0o600 }).catch(() => {});
      await environment.replaceFile(p, text);
    },
    mkdir: (p, mode = 0o700) => environment.mkdir(p, { recursive: true, mode }),
    rm: (p, options = {}) => environment.rm(p, { recursive: options.recursive === true, force: true }),
    copyNew: async (source, target, maxBytes) => {
      // SFTP opens follow links: the file is looked at first (a link or anything but a regular file is refused), and
      // the copy made with 'wx' (never over a file the worktree has). A swap between the look and the read is not
      // guarded there as O_NOFOLLOW guards it here.
      const info = await missing(environment.lstat(source));
      if (!info) return 'cannot be read';
      if (info.isSymbolicLink()) return 'cannot be read (or is a link)';
      if (!info.isFile()) return 'not a regular file';
      if (info.size > maxBytes) return `larger than ${maxBytes / 1024 / 1024} MiB`;
      try {
        const data = await environment.readBytes(source);
        if (data.length > maxBytes) return `larger than ${maxBytes / 1024 / 1024} MiB`;
        await environment.mkdir(posix.dirname(target), { recursive: true });
        await environment.writeFile(target, data, { flag: 'wx', mode: info.mode & 0o777 });
        return null;
      } catch (error) {
        return (error as { code?: string }).code === 'EEXIST' ? 'the worktree already has it' : `could not be copied: ${(error as Error).message}`;
      }
    },
    tempIndex: async (file) => {
      // mktemp there (owner-only), and the index copied with its times (cp -p) in the same round trip.
      const out = await scriptThere(
        environment,
        'd=$(mktemp -d "${TMPDIR:-/tmp}/deft-wt-index-XXXXXXXX") || exit 1\nif cp -p -- "$1" "$d/index" 2>/dev/null; then echo "1 $d"; else echo "0 $d"; fi',
        [file],
      );
      const match = /^([01]) (\/\S.*)\n?$/.exec(out ?? '');
      if (!match) throw new Error(`a temporary folder could not be made on ${environment.label}.`);
      const dir = match[2]!;
      return {
        index: posix.join(dir, 'index'),
        copied: match[1] === '1',
        remove: async () => void (await scriptThere(environment, 'rm -rf -- "$1"', [dir])),
      };
    },
  };
}
