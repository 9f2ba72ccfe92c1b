import { type Dirent, existsSync, lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PlannerFs } from './planner-fs';

/**
 * Where other processes' unix sockets are kept from a sandboxed command (Linux). Abstract sockets (X11's
 * `@/tmp/.X11-unix/X0`, D-Bus) live in a network namespace, so a command in its own never sees them.
 * Path sockets are files: connecting needs no write access, so a read-only view does not stop it — the
 * socket must not be there at all. Listing them when a command starts and binding /dev/null over each
 * fails twice: a socket that vanishes before the mount makes bubblewrap fail, and one created later (a
 * tmux or ssh-agent started after a dev server) is reachable from a long-running task. So whole folders
 * are covered instead, with an empty file system of the command's own, where later sockets never appear:
 *
 * - `/tmp` and `/run` (and a real `/var/run`) always — nearly every socket lives there (the desktop bus,
 *   Wayland, X11's path socket, tmux, ssh-agent, gpg-agent, docker.sock, systemd, editors' servers).
 *   What Deft places there comes back: the write roots (the session's temp folder, a workspace under
 *   /tmp), Deft's and the user's home when they are there (test setups), Deft's own install folder and
 *   the folder of the Node it runs on (a checkout or an unpacked build under /tmp: servers and helpers
 *   Deft starts in the sandbox run from there), and a few files of /run programs read (NixOS's system
 *   profile, resolv.conf's target).
 * - Each other folder that holds a listening socket when the command starts, re-filled with its other
 *   entries (bound read-only only if they still exist, so one that vanishes is skipped; links are made
 *   again as links). A socket that goes away meanwhile is no longer a mount target, so it cannot make
 *   bubblewrap fail; one made there later is not seen.
 * - A socket directly in a folder too big to re-fill (or `/`) is masked on its own (the old way).
 *
 * Sockets inside the write roots are the workspace's own (a database a command started) and stay reachable.
 */
export interface Cover {
  dir: string;
  /** Entries of the covered folder shown again: bound read-only, or made again as a link. */
  children: Array<{ path: string; link?: string }>;
}

export interface HiddenPlaces {
  /** Folders given an empty file system of the command's own (made read-only once everything is mounted). */
  covers: Cover[];
  /** Paths under the system covers shown again read-only (when they exist). */
  readable: string[];
  /** Sockets masked one by one (in a folder too big to cover). */
  sockets: string[];
}

/** The system folders always covered (when they are real folders). */
export const SYSTEM_COVERS = ['/tmp', '/run', '/var/run'];
/** What programs read in /run that holds no socket. */
const RUN_FILES = [
  '/run/current-system',
  '/run/booted-system',
  '/run/opengl-driver',
  '/run/opengl-driver-32',
  '/run/systemd/resolve/stub-resolv.conf',
  '/run/systemd/resolve/resolv.conf',
  '/run/resolvconf/resolv.conf',
];
/** A folder with more entries than this is not re-filled (each entry is a mount). */
const MAX_CHILDREN = 64;

function within(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

function entries(dir: string): Dirent[] | null {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
}

/** Path sockets other processes listen on (from /proc/net/unix). */
export function listeningSockets(table = '/proc/net/unix'): string[] {
  let text: string;
  try {
    text = readFileSync(table, 'utf8');
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
  return [...found];
}

export interface HiddenOptions {
  /** Folders the command may write (their sockets are the workspace's own). */
  writeRoots: readonly string[];
  /** Folders already hidden whole (credential stores). */
  hiddenDirs: readonly string[];
  /** Places Deft needs to see when they are under a system cover (Deft's home, the user's home). */
  keep: readonly string[];
  sockets?: readonly string[];
  /** The machine's file system (default: this one's); another machine's passes its listening sockets in `sockets`. */
  fs?: PlannerFs;
}

/** What to cover for one command. */
export function hiddenPlaces(options: HiddenOptions): HiddenPlaces {
  const fs = options.fs;
  const isDir = fs ? (path: string) => fs.lstat(path)?.kind === 'dir' : isRealDir;
  const system = SYSTEM_COVERS.filter(isDir);
  const covered = (path: string) => system.some((dir) => within(dir, path)) || options.hiddenDirs.some((dir) => within(dir, path));
  const readable = [...RUN_FILES, ...options.keep].filter((path) => system.some((dir) => within(dir, path) && path !== dir));
  const byDir = new Map<string, string[]>();
  for (const socket of options.sockets ?? listeningSockets()) {
    if (covered(socket) || options.writeRoots.some((root) => within(root, socket))) continue;
    if (fs ? fs.lstat(socket)?.kind !== 'socket' : !isSocket(socket)) continue;
    const dir = dirname(socket);
    byDir.set(dir, [...(byDir.get(dir) ?? []), socket]);
  }
  const covers: Cover[] = system.map((dir) => ({ dir, children: [] }));
  const sockets: string[] = [];
  // Parents before children: a folder's own cover goes over its parent's re-filled entry.
  for (const [dir, found] of [...byDir].sort(([a], [b]) => a.split(sep).length - b.split(sep).length)) {
    const list = dir === sep ? null : fs ? null : entries(dir);
    if (!list || list.length > MAX_CHILDREN) {
      sockets.push(...found);
      continue;
    }
    const children: Cover['children'] = [];
    for (const entry of list) {
      const path = join(dir, entry.name);
      if (entry.isSocket()) continue;
      if (entry.isSymbolicLink()) {
        try {
          children.push({ path, link: readlinkSync(path) });
        } catch {
          // Gone meanwhile.
        }
      } else children.push({ path });
    }
    covers.push({ dir, children });
  }
  return { covers, readable, sockets };
}

/**
 * Deft's own install folder (the nearest folder above this module holding node_modules) and the folder
 * of the Node binary it runs on: read-only places sandboxed servers and helpers are started from.
 */
let installPlaces: string[] | undefined;

export function ownInstallPlaces(): string[] {
  if (installPlaces) return installPlaces;
  const places = [dirname(process.execPath)];
  let dir = dirname(fileURLToPath(import.meta.url));
  while (dirname(dir) !== dir) {
    if (existsSync(join(dir, 'node_modules'))) {
      places.push(dir);
      break;
    }
    dir = dirname(dir);
  }
  installPlaces = places;
  return places;
}
