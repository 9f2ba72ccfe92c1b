import { randomBytes } from 'node:crypto';
import { chmod, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replace a file's content atomically: write a temp file beside it, flush it to disk, then rename it
 * over the target. A crash at any point leaves either the old file or the new one, never a mix. An
 * existing file keeps its permission bits; a new one gets the default (0666 less the umask).
 * `path` must be the real path (symlinks already resolved), so a link keeps pointing at the file.
 * The temp file's name carries the writer's pid, so one left by a killed writer can be swept later.
 */
export async function replaceFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const existingMode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => null,
  );
  const temp = join(dirname(path), `.${basename(path)}.deft-${process.pid}-${randomBytes(5).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', existingMode ?? 0o666);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // `open` applies the umask; an existing file's exact bits (e.g. 0755 scripts) are restored here.
    if (existingMode !== null) await chmod(temp, existingMode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
  await sweepOnce(dirname(path));
}

const TEMP_NAME = /^\..+\.deft-(\d+)-[0-9a-f]+\.tmp$/;
const swept = new Set<string>();

/**
 * Temp files of writers that died mid-write (their pid is gone) are removed, once per folder per
 * process: the target was never touched, but the half-written temp must not stay behind.
 */
async function sweepOnce(dir: string): Promise<void> {
  if (swept.has(dir)) return;
  swept.add(dir);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) await rm(join(dir, name), { force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Make the rename itself durable (best effort: not every platform can fsync a directory). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows and some file systems refuse; the data itself is already flushed.
  }
}
