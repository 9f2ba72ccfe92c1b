import { type Stats, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the store's last capture found of the files it hashed itself, beside its index (`deft-looked.json` in its git
 * folder). The index is left behind for such files (store.ts, LAG_LIMIT), so git's status reports each of them again at
 * every capture; a file whose lstat is exactly as this record has it is as the record's tree holds it, and is neither
 * read, hashed nor looked up in the trees again. It is taken only while the store's HEAD is that tree.
 *
 * A file is remembered only when its last change (its ctime, which no program can set back) is SETTLED_MS older than
 * the start of the capture that looked at it: a change made after that look gets a later ctime on any file system whose
 * timestamps are that fine or finer, so its lstat no longer matches and it is looked at again.
 */
export const LOOKED_RECORD = 'deft-looked.json';
const SETTLED_MS = 2_000;

/** A file's size, mtime, ctime, inode and mode as looked at; 0 for a path that held nothing. */
export type Mark = readonly [size: number, mtimeMs: number, ctimeMs: number, ino: number, mode: number] | 0;

/** The marks remembered for `tree` (the store's HEAD now), or null when the record is of another tree or unreadable. */
export function readLooked(gitDir: string, tree: string): Map<string, Mark> | null {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(join(gitDir, LOOKED_RECORD), 'utf8'));
  } catch {
    return null;
  }
  if (!data || typeof data !== 'object' || (data as { tree?: unknown }).tree !== tree) return null;
  const files = (data as { files?: unknown }).files;
  if (!files || typeof files !== 'object') return null;
  const marks = new Map<string, Mark>();
  for (const [path, mark] of Object.entries(files as Record<string, unknown>)) {
    if (mark === 0 || (Array.isArray(mark) && mark.length === 5 && mark.every((n) => typeof n === 'number'))) marks.set(path, mark as Mark);
  }
  return marks;
}

/** Remember `marks` for `tree` (nothing to remember: the record is removed). Call holding the store's lock. */
export function writeLooked(gitDir: string, tree: string, marks: ReadonlyMap<string, Mark>): void {
  const path = join(gitDir, LOOKED_RECORD);
  try {
    if (!marks.size) return rmSync(path, { force: true });
    writeFileSync(path, JSON.stringify({ tree, files: Object.fromEntries(marks) }), { mode: 0o600 });
  } catch {
    // Only a cost: the next capture looks at those files again.
    rmSync(path, { force: true });
  }
}

/** lstat, or null where nothing is (or it cannot be asked). */
export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Whether a path, as lstat finds it now (null: nothing), is as it was when `mark` was taken. */
export function unchanged(mark: Mark | undefined, stats: Stats | null): boolean {
  if (mark === undefined) return false;
  if (mark === 0) return stats === null;
  return (
    stats !== null &&
    stats.isFile() &&
    stats.size === mark[0] &&
    stats.mtimeMs === mark[1] &&
    stats.ctimeMs === mark[2] &&
    stats.ino === mark[3] &&
    stats.mode === mark[4]
  );
}

/** The mark of a regular file (or of nothing) looked at by a capture that began at `began`; undefined when it changed too lately to be trusted. */
export function markOf(stats: Stats | null, began: number): Mark | undefined {
  if (stats === null) return 0;
  if (!stats.isFile() || Math.max(stats.ctimeMs, stats.mtimeMs) >= began - SETTLED_MS) return undefined;
  return [stats.size, stats.mtimeMs, stats.ctimeMs, stats.ino, stats.mode];
}
