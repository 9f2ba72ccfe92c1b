import { statSync } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import type { Environment } from '#contract/environment';

/** A folder entry as the scanner sees it (node's Dirent satisfies it). */
export interface SkillEntry {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** What a stat tells the scanner. */
export interface SkillFileInfo {
  size: number;
  mtimeMs: number;
  /** The change time and inode, where the machine tells them (this one does): what the stored catalog is keyed by too. */
  ctimeMs?: number;
  ino?: number;
  isFile(): boolean;
  isDirectory(): boolean;
}

/**
 * The four file operations the skill scanner needs, on the machine the roots are on: this one for the user's own
 * skills, the workspace's machine (its Environment) for a remote workspace's `.deft/skills`, `.claude/skills`…
 */
export interface SkillFs {
  stat(this: void, path: string): Promise<SkillFileInfo>;
  realpath(this: void, path: string): Promise<string>;
  readText(this: void, path: string): Promise<string>;
  readdir(this: void, path: string): Promise<SkillEntry[]>;
  /**
   * The stat of each path, null where it cannot be taken (missing, not a folder on the way, unreadable). Where a
   * machine has no cheaper way, one `stat` each.
   */
  statMany(this: void, paths: readonly string[]): Promise<Array<SkillFileInfo | null>>;
}

/** Paths stat'd between two turns of the event loop (a batch never holds it for long: about a millisecond). */
const STAT_BATCH = 128;

/**
 * This machine's stats, taken synchronously in short batches: a skills folder of 1,000 skills is one stat per
 * SKILL.md each run, and a promise per stat (a thread-pool round trip, its allocations and their collection) cost
 * three times the stat itself (issue 36).
 */
async function localStatMany(paths: readonly string[]): Promise<Array<SkillFileInfo | null>> {
  const out: Array<SkillFileInfo | null> = [];
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_BATCH === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      out.push(statSync(paths[i]!, { throwIfNoEntry: false }) ?? null);
    } catch {
      out.push(null);
    }
  }
  return out;
}

/** This machine's file system. */
export const localSkillFs: SkillFs = {
  stat: (path) => stat(path),
  realpath: (path) => realpath(path),
  readText: (path) => readFile(path, 'utf8'),
  readdir: (path) => readdir(path, { withFileTypes: true }),
  statMany: localStatMany,
};

/** A remote workspace's files, read there through its Environment (SFTP on the SSH backend). */
export function environmentSkillFs(environment: Environment): SkillFs {
  return {
    stat: (path) => environment.stat(path),
    realpath: (path) => environment.realpath(path),
    readText: (path) => environment.readText(path),
    readdir: async (path) =>
      (await environment.readdir(path)).map((entry) => ({
        name: entry.name,
        isFile: () => entry.type === 'file',
        isDirectory: () => entry.type === 'directory',
        isSymbolicLink: () => entry.type === 'symlink',
      })),
    statMany: (paths) => Promise.all(paths.map((path) => environment.stat(path).catch(() => null))),
  };
}
