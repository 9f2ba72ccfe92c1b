import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, open, readdir, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ToolInputError } from '#contract/tool';
import { basename, dirname, join } from 'node:path';

/**
 * Replace a file's content atomically: write a temp file beside it, flush it to disk, then rename it
 * over the target. A crash at any point leaves either the old file or the new one, never a mix. An
 * existing file keeps its permission bits; a new one gets the default (0666 less the umask).
 * `path` must be the real path (symlinks already resolved), so a link keeps pointing at the file.
 * The temp file's name carries the writer's pid, so one left by a killed writer can be swept later.
 */
export async function replaceFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const parent = dirname(path);
  const existingMode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => null,
  );
  if (process.platform === 'linux' && (await procFdWorks())) return replaceInFolder(parent, path, data, existingMode);
  await ensureUnmoved(parent, path);
  const temp = join(parent, `.${basename(path)}.deft-${process.pid}-${randomBytes(5).toString('hex')}.tmp`);
  let created: { at: string; ino: number; dev: number } | null = null;
  try {
    const handle = await open(temp, 'wx', existingMode ?? 0o666);
    try {
      const info = await handle.stat();
      created = { at: await openedPath(handle, temp), ino: info.ino, dev: info.dev };
      // The folder was swapped for a link between the check and the open: the temp went elsewhere.
      if (dirname(created.at) !== parent) throw moved(parent, path);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // `open` applies the umask; an existing file's exact bits (e.g. 0755 scripts) are restored here.
    if (existingMode !== null) await chmod(temp, existingMode);
    await ensureUnmoved(parent, path);
    await rename(temp, path);
  } catch (error) {
    await removeOurs(created, temp);
    throw asWriteError(error, path);
  }
  // A swap just before the rename sends it through the link: take back what landed there and refuse.
  const landed = await realpath(path).catch(() => path);
  if (dirname(landed) !== parent) {
    await removeOurs(created && { ...created, at: landed }, landed);
    throw moved(parent, path);
  }
  await syncDirectory(parent);
  await sweepOnce(parent);
}

let procFd: Promise<boolean> | null = null;
/** Whether /proc/self/fd names open folders (not so where /proc is not mounted). */
function procFdWorks(): Promise<boolean> {
  procFd ??= open('/', constants.O_RDONLY | constants.O_DIRECTORY).then(
    async (root) => {
      const linked = await readlink(`/proc/self/fd/${root.fd}`).catch(() => null);
      await root.close();
      return linked === '/';
    },
    () => false,
  );
  return procFd;
}

/**
 * Linux: every step goes through a descriptor of the folder itself (`/proc/self/fd/N/name` names an entry of
 * the folder that was opened, however its path changes meanwhile). A name in the path swapped for a
 * symlink cannot redirect the temp file or the rename — a rename resolves its two paths apart, and a
 * swap between them once moved a file out of the workspace. The folder is checked to still be where it
 * was resolved before the rename and after; a write into a folder moved away is taken back and refused.
 */
async function replaceInFolder(parent: string, path: string, data: string | Uint8Array, existingMode: number | null): Promise<void> {
  const folder = await open(parent, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP' || error.code === 'ENOTDIR' ? moved(parent, path) : asWriteError(error, path);
  });
  const at = `/proc/self/fd/${folder.fd}`;
  const stillThere = async () => {
    if ((await readlink(at).catch(() => null)) !== parent) throw moved(parent, path);
  };
  const name = basename(path);
  const temp = `${at}/.${name}.deft-${process.pid}-${randomBytes(5).toString('hex')}.tmp`;
  let created: { ino: number; dev: number } | null = null;
  try {
    await stillThere();
    try {
      const handle = await open(temp, 'wx', existingMode ?? 0o666);
      try {
        const info = await handle.stat();
        created = { ino: info.ino, dev: info.dev };
        await handle.writeFile(data);
        // `open` applies the umask; an existing file's exact bits (e.g. 0755 scripts) are kept.
        if (existingMode !== null) await handle.chmod(existingMode);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await stillThere();
      await rename(temp, `${at}/${name}`);
    } catch (error) {
      if (created) await removeOurs({ ...created, at: temp }, temp);
      throw error;
    }
    try {
      await stillThere();
    } catch (error) {
      if (created) await removeOurs({ ...created, at: `${at}/${name}` }, `${at}/${name}`);
      throw error;
    }
    await folder.sync().catch(() => {});
    await sweepOnce(parent, at);
  } catch (error) {
    throw asWriteError(error, path);
  } finally {
    await folder.close();
  }
}

/** A file-system error as the tool's error (a ToolInputError already is one). */
function asWriteError(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (!code || error instanceof ToolInputError) return error;
  return new ToolInputError(`${path} could not be written (${code}: ${(error as Error).message}). Nothing was changed.`);
}

/** Thrown when the folder a write goes to is no longer where it was resolved (a symlink swapped in). */
function moved(parent: string, path: string): Error {
  return new ToolInputError(
    `The folder ${parent} changed while ${basename(path)} was being written (it was replaced, e.g. by a symlink), so nothing was written. Check the folder and try again.`,
  );
}

async function ensureUnmoved(parent: string, path: string): Promise<void> {
  const real = await realpath(parent).catch(() => null);
  if (real !== null && real !== parent) throw moved(parent, path);
}

/** Where an open file really is: the kernel's own answer on Linux, else the path resolved. */
async function openedPath(handle: FileHandle, path: string): Promise<string> {
  if (process.platform === 'linux') {
    const linked = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (linked) return linked;
  }
  return realpath(path).catch(() => path);
}

/** Remove a file this write created, wherever it ended up — only if it is still that file. */
async function removeOurs(created: { at: string; ino: number; dev: number } | null, fallback: string): Promise<void> {
  for (const candidate of new Set([created?.at, fallback].filter((p): p is string => Boolean(p)))) {
    const info = await stat(candidate).catch(() => null);
    if (info && (!created || (info.ino === created.ino && info.dev === created.dev))) await rm(candidate, { force: true }).catch(() => {});
  }
}

const TEMP_NAME = /^\..+\.deft-(\d+)-[0-9a-f]+\.tmp$/;
const swept = new Set<string>();

/**
 * Temp files of writers that died mid-write (their pid is gone) are removed, once per folder per
 * process: the target was never touched, but the half-written temp must not stay behind.
 */
async function sweepOnce(dir: string, via = dir): Promise<void> {
  if (swept.has(dir)) return;
  swept.add(dir);
  const names = await readdir(via).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(TEMP_NAME.exec(name)?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) await rm(join(via, name), { force: true }).catch(() => {});
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
