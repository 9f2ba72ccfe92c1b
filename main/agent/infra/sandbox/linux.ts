import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { COMMONDIR_PLACEHOLDER, type FilesystemPolicy, type PolicyPath } from './filesystem-policy';
import type { HiddenPlaces } from './hidden-places';

/** Files bubblewrap binds over what it hides: an empty folder and an empty file nobody may read. */
export interface MaskFiles {
  emptyDir: string;
  unreadableFile: string;
}

/** Create the mask files in `dir` (a folder private to this process). */
export function createMaskFiles(dir: string): MaskFiles {
  const emptyDir = join(dir, 'empty');
  const unreadableFile = join(dir, 'unreadable');
  mkdirSync(emptyDir, { recursive: true, mode: 0o555 });
  if (!existsSync(unreadableFile)) writeFileSync(unreadableFile, '', { mode: 0o000 });
  chmodSync(unreadableFile, 0o000);
  return { emptyDir, unreadableFile };
}

export interface BwrapOptions {
  policy: FilesystemPolicy;
  masks: MaskFiles;
  cwd: string;
  /** Where other processes' unix sockets are kept from the command (hidden-places.ts). */
  hidden: HiddenPlaces;
  /** The command's user mapping (non-root: back to the caller's ids). */
  userArgs: readonly string[];
  /** No shared sandbox network to join: give the command a network of its own (loopback only, no proxy). */
  ownNetwork: boolean;
  /** Sockets to show read-only at their own path, even under a cover (a remote sandbox's relay to the proxy). */
  sockets?: readonly string[];
}

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * bubblewrap arguments for one command (before `--` and the command). The root is read-only; the
 * write roots are bound writable; denied paths are bound read-only over them (so a deny inside a root
 * wins, however the command spells the path: links resolve to the read-only mount, and hard links
 * cannot cross mounts); pinned folders are bound onto themselves so they cannot be renamed; hidden
 * paths get an empty, unreadable mount. The command runs in its own PID namespace (it cannot see or
 * signal Deft, nor read Deft's /proc/<pid>/environ), in a session of its own with no capabilities, and
 * everything it started dies with it.
 */
export function bwrapArgs(options: BwrapOptions): string[] {
  const { policy, masks, hidden } = options;
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  const covers = hidden.covers.map((c) => c.dir);
  // What is under a cover exists inside only when it was shown again (or bound as a write root).
  const shown = [...policy.writeRoots, ...hidden.readable, ...hidden.covers.flatMap((c) => c.children.map((child) => child.path))];
  const exists = (path: string) => !covers.some((dir) => within(dir, path)) || shown.some((root) => within(root, path));
  for (const cover of hidden.covers) {
    args.push('--tmpfs', cover.dir);
    for (const child of cover.children) {
      if (child.link !== undefined) args.push('--symlink', child.link, child.path);
      else args.push('--ro-bind-try', child.path, child.path);
    }
    if (cover.children.length === 0) for (const path of hidden.readable) if (within(cover.dir, path)) args.push('--ro-bind-try', path, path);
  }
  for (const root of policy.writeRoots) args.push('--bind', root, root);
  for (const pin of policy.pins) args.push('--bind', pin, pin);
  for (const deny of policy.denyWrite) {
    // A placeholder was written where the mount point goes (MountPoints.placeholders) and is bound as it is;
    // where it could not be (a folder the user may not write), no command can create the file either.
    if (deny.missing && deny.placeholder !== undefined) args.push('--ro-bind-try', deny.path, deny.path);
    else if (deny.missing) args.push('--ro-bind', deny.dir ? masks.emptyDir : '/dev/null', deny.path);
    else args.push('--ro-bind', deny.path, deny.path);
  }
  for (const hiddenPath of policy.denyRead.filter((d) => exists(d.path))) {
    if (hiddenPath.dir) args.push('--perms', '0000', '--tmpfs', hiddenPath.path, '--remount-ro', hiddenPath.path);
    else args.push('--ro-bind', masks.unreadableFile, hiddenPath.path);
  }
  for (const socket of hidden.sockets) args.push('--ro-bind', '/dev/null', socket);
  for (const socket of options.sockets ?? []) args.push('--ro-bind', socket, socket);
  for (const dir of covers) args.push('--remount-ro', dir);
  args.push('--unshare-pid', '--new-session', '--die-with-parent', '--cap-drop', 'ALL', ...options.userArgs);
  if (options.ownNetwork) args.push('--unshare-net');
  args.push('--chdir', options.cwd);
  return args;
}

/** Containment only: the whole file system as it is, a process namespace of its own that dies with its parent. */
export function containArgs(): string[] {
  return ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent'];
}

/**
 * Mount points a command's denies had to create (a missing `.deft/`, `.git`, `.git/hooks`, a placeholder
 * `.git/commondir`): made when the command starts, removed when the last command using them ends, if
 * still empty (or still the placeholder).
 */
export class MountPoints {
  private readonly users = new Map<string, number>();

  /** A mount point another running command made: it vanishes when that command ends, so a new command must treat it as missing. */
  holds(path: string): boolean {
    return this.users.has(path);
  }

  acquire(paths: readonly string[]): void {
    for (const path of paths) this.users.set(path, (this.users.get(path) ?? 0) + 1);
  }

  /** Write the placeholders missing mount points must hold (bubblewrap would make them empty). */
  placeholders(denies: readonly PolicyPath[]): void {
    for (const deny of denies) {
      if (!deny.missing || deny.placeholder === undefined) continue;
      try {
        writeFileSync(deny.path, deny.placeholder, { flag: 'wx', mode: 0o644 });
      } catch {
        // There already (another command's): kept as it is.
      }
    }
  }

  release(paths: readonly string[]): void {
    for (const path of paths) {
      const left = (this.users.get(path) ?? 1) - 1;
      if (left > 0) {
        this.users.set(path, left);
        continue;
      }
      this.users.delete(path);
      try {
        const info = lstatSync(path);
        if (info.isDirectory()) {
          if (readdirSync(path).length === 0) rmdirSync(path);
        } else if (info.isFile() && (info.size === 0 || readFileSync(path, 'utf8') === COMMONDIR_PLACEHOLDER)) unlinkSync(path);
      } catch {
        // Gone already: nothing to tidy.
      }
    }
  }
}
