import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, open, readdir, rename, rm, rmdir, symlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readBlobs } from './blobs';
import type { GitPlaces } from './git';

/** One path to put in its checkpointed state: `mode` null deletes it. Paths are relative to the work tree root. */
export interface RestoreEntry {
  path: string;
  mode: string | null;
  blob: string;
}

export interface RestoreProblem {
  path: string;
  reason: string;
}

const TEMP_MARK = '.deft-restore-';

/** A path git may hold but Deft never writes: absolute, with `..`, or into a `.git` folder. */
export function unsafePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.includes('\0') || path.includes('\\')) return true;
  return path.split('/').some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git');
}

/**
 * Make each path what the checkpoint holds: deletions first (and the folders they leave empty), then files and links, each written beside its target and renamed over it, so a file is
 * always either its old or its new self. A folder in a path that is a link or a file is never written
 * through. Running it again with the same entries gives the same result (that is how an interrupted
 * rewind is finished). Returns what could not be restored and why.
 */
export async function applyEntries(places: GitPlaces, entries: readonly RestoreEntry[]): Promise<RestoreProblem[]> {
  const root = places.workTree;
  const problems: RestoreProblem[] = [];
  await sweepTemps(root, entries);
  for (const entry of entries) {
    if (unsafePath(entry.path)) problems.push({ path: entry.path, reason: 'the path is not a safe workspace path' });
  }
  const safe = entries.filter((e) => !unsafePath(e.path));
  for (const entry of safe.filter((e) => e.mode === null)) {
    const target = join(root, entry.path);
    const stats = await lstat(target).catch(() => null);
    if (!stats) continue;
    if (stats.isDirectory()) {
      problems.push({ path: entry.path, reason: 'it is now a folder' });
      continue;
    }
    if (!(await parentsAreFolders(root, entry.path))) {
      problems.push({ path: entry.path, reason: 'a folder in its path is now a link or a file' });
      continue;
    }
    await rm(target, { force: true });
    await removeEmptyParents(root, entry.path);
  }
  const writes = safe.filter((e) => e.mode !== null && e.mode !== '160000');
  const byBlob = new Map<string, RestoreEntry[]>();
  for (const entry of writes) byBlob.set(entry.blob, [...(byBlob.get(entry.blob) ?? []), entry]);
  await readBlobs(places, [...byBlob.keys()], async (blob, content) => {
    for (const entry of byBlob.get(blob) ?? []) {
      const problem = await writeEntry(root, entry, content);
      if (problem) problems.push({ path: entry.path, reason: problem });
    }
  });
  return problems;
}

async function writeEntry(root: string, entry: RestoreEntry, content: Buffer): Promise<string | null> {
  const target = join(root, entry.path);
  const made = await makeParents(root, entry.path);
  if (made) return made;
  const existing = await lstat(target).catch(() => null);
  if (existing?.isDirectory()) {
    // A folder where the checkpoint has a file: only an empty one may go.
    if (
      !(await rmdir(target).then(
        () => true,
        () => false,
      ))
    )
      return 'a folder with files Deft does not capture is in its place';
  }
  const temp = join(dirname(target), `.${basename(target)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    if (entry.mode === '120000') {
      await symlink(content.toString('utf8'), temp);
    } else {
      const executable = entry.mode === '100755';
      // An existing file keeps its permission bits; only the executable bits follow the checkpoint.
      const base = existing?.isFile() ? existing.mode & 0o7777 : 0o666 & ~currentUmask();
      const mode = executable ? base | ((base & 0o444) >> 2) : base & ~0o111;
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(content);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await chmod(temp, mode);
    }
    await rename(temp, target);
    return null;
  } catch (error) {
    await rm(temp, { force: true });
    return (error as Error).message;
  }
}

let umask: number | undefined;
function currentUmask(): number {
  // process.umask() without an argument is deprecated; reading and restoring it is the portable way.
  if (umask === undefined) {
    umask = process.umask(0o022);
    process.umask(umask);
  }
  return umask;
}

/** Create the folders of a path; null when done, else why not (one is a link or a file). */
async function makeParents(root: string, path: string): Promise<string | null> {
  const parts = path.split('/').slice(0, -1);
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    const stats = await lstat(dir).catch(() => null);
    if (!stats) {
      await mkdir(dir);
      continue;
    }
    if (stats.isSymbolicLink()) return `${dir} is a link, and Deft does not write through links`;
    if (!stats.isDirectory()) return `${dir} is a file that is not part of the checkpoint`;
  }
  return null;
}

async function parentsAreFolders(root: string, path: string): Promise<boolean> {
  let dir = root;
  for (const part of path.split('/').slice(0, -1)) {
    dir = join(dir, part);
    const stats = await lstat(dir).catch(() => null);
    if (!stats?.isDirectory()) return false;
  }
  return true;
}

/** Remove the folders a deletion left empty, up to (not including) the root. */
async function removeEmptyParents(root: string, path: string): Promise<void> {
  for (let dir = dirname(join(root, path)); dir.length > root.length && dir.startsWith(root); dir = dirname(dir)) {
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      return;
  }
}

/** Temp files a killed restore left beside its targets. */
async function sweepTemps(root: string, entries: readonly RestoreEntry[]): Promise<void> {
  const dirs = new Set(entries.filter((e) => !unsafePath(e.path)).map((e) => dirname(join(root, e.path))));
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (name.includes(TEMP_MARK) && name.endsWith('.tmp')) await rm(join(dir, name), { force: true }).catch(() => {});
  }
}
