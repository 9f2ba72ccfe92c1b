import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * How a changed file is opened: never through a symbolic link (another process may swap the file for one
 * to a file outside the workspace after the lstat), and never waiting on a FIFO swapped in.
 */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A regular file's bytes, read in one synchronous call; null when it is not one (any more) or cannot be read. */
export function readSmall(path: string): Buffer | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, READ_FLAGS);
    return fstatSync(fd).isFile() ? readFileSync(fd) : null;
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

export async function readLarge(path: string): Promise<Buffer | null> {
  const handle = await open(path, READ_FLAGS).catch(() => null);
  if (!handle) return null;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : null;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
