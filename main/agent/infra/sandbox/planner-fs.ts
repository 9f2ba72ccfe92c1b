import { lstatSync, readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** What one path is, as the sandbox's planner needs to know it. */
export interface PlannerNode {
  kind: 'dir' | 'file' | 'link' | 'socket' | 'other';
  size: number;
}

/**
 * The facts the sandbox's planner reads about a machine's file system, synchronously: this machine's disk (`localFs`),
 * or a snapshot gathered on another machine in one round trip (`remote-facts.ts`). The policy (filesystem-policy.ts,
 * workspace-inputs.ts, secret-masks.ts) is written once against this, so a remote workspace gets the same walls.
 */
export interface PlannerFs {
  lstat(path: string): PlannerNode | null;
  /** Following links. */
  stat(path: string): PlannerNode | null;
  realpath(path: string): string | null;
  /** A regular file's text (links followed) when it holds at most `max` bytes; else null. */
  read(path: string, max: number): string | null;
  readdir(path: string): Array<{ name: string; kind: PlannerNode['kind'] }> | null;
  /** The canonical path in one answer, where the backend has it (facts gathered with `realpath -m`); null when not known yet. */
  canonical?(path: string): string | null;
}

type Typed = { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean; isSocket(): boolean };

function kindOf(info: Typed): PlannerNode['kind'] {
  return info.isSymbolicLink() ? 'link' : info.isDirectory() ? 'dir' : info.isFile() ? 'file' : info.isSocket() ? 'socket' : 'other';
}

function nodeOf(info: Typed & { size: number }): PlannerNode {
  return { kind: kindOf(info), size: info.size };
}

function attempt<T>(run: () => T): T | null {
  try {
    return run();
  } catch {
    return null;
  }
}

/** This machine's file system. */
export const localFs: PlannerFs = {
  lstat: (path) => attempt(() => nodeOf(lstatSync(path))),
  stat: (path) => attempt(() => nodeOf(statSync(path))),
  realpath: (path) => attempt(() => realpathSync(path)),
  read: (path, max) =>
    attempt(() => {
      const info = statSync(path);
      return info.isFile() && info.size <= max ? readFileSync(path, 'utf8') : null;
    }),
  readdir: (path) => attempt(() => readdirSync(path, { withFileTypes: true }).map((d) => ({ name: d.name, kind: kindOf(d) }))),
};

/** `dir`, `file` or null (missing), not following a last link. */
export function kindIn(fs: PlannerFs, path: string): 'dir' | 'file' | null {
  const node = fs.lstat(path);
  return node ? (node.kind === 'dir' ? 'dir' : 'file') : null;
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended (symlinks resolved). */
export function canonicalIn(fs: PlannerFs, path: string): string {
  if (fs.canonical) return fs.canonical(resolve(path)) ?? resolve(path);
  let current = resolve(path);
  const rest: string[] = [];
  for (;;) {
    const real = fs.realpath(current);
    if (real !== null) return join(real, ...rest.reverse());
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    rest.push(basename(current));
    current = parent;
  }
}
