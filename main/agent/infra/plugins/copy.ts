import { copyFile, lstat, mkdir, readdir, readlink, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isInside } from './parts';

/** What a plugin folder may hold at most: beyond this it is refused, not cut. */
export const COPY_LIMITS = { bytes: 100 * 1024 * 1024, files: 5_000, depth: 16 };

/** A folder that cannot be copied safely; the message says why. */
export class UnsafePluginError extends Error {
  override name = 'UnsafePluginError';
}

interface Planned {
  from: string;
  to: string;
}

/**
 * Check a whole folder before anything is written: every entry a plain file or folder, or a symbolic link
 * that leads to a file inside `boundary`; no device, FIFO or socket; at most COPY_LIMITS. `.git` is skipped.
 */
async function plan(source: string, target: string, boundary: string): Promise<{ dirs: string[]; files: Planned[] }> {
  const dirs: string[] = [target];
  const files: Planned[] = [];
  let bytes = 0;
  const walk = async (from: string, to: string, depth: number): Promise<void> => {
    if (depth > COPY_LIMITS.depth) throw new UnsafePluginError(`${from} is nested more than ${COPY_LIMITS.depth} folders deep`);
    for (const entry of await readdir(from, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const path = join(from, entry.name);
      const dest = join(to, entry.name);
      let info = await lstat(path);
      let real = path;
      if (info.isSymbolicLink()) {
        const target = resolve(dirname(path), await readlink(path));
        real = await realpath(target).catch(() => {
          throw new UnsafePluginError(`${path} is a symbolic link to ${target}, which does not exist`);
        });
        if (!isInside(boundary, real)) throw new UnsafePluginError(`${path} is a symbolic link that leads outside the plugin (to ${real})`);
        info = await lstat(real);
        if (info.isDirectory()) throw new UnsafePluginError(`${path} is a symbolic link to a folder; plugins may link files only`);
      }
      if (info.isDirectory()) {
        dirs.push(dest);
        await walk(path, dest, depth + 1);
      } else if (info.isFile()) {
        bytes += info.size;
        files.push({ from: real, to: dest });
        if (files.length > COPY_LIMITS.files) throw new UnsafePluginError(`the plugin holds more than ${COPY_LIMITS.files} files`);
        if (bytes > COPY_LIMITS.bytes) throw new UnsafePluginError(`the plugin is larger than ${COPY_LIMITS.bytes / 1024 / 1024} MB`);
      } else {
        throw new UnsafePluginError(`${path} is not a regular file or folder`);
      }
    }
  };
  await walk(source, target, 0);
  return { dirs, files };
}

/** Copy a plugin folder into `target` (which must not exist yet), refusing what `plan` refuses before writing anything. */
export async function copyPluginFolder(source: string, target: string): Promise<void> {
  const boundary = await realpath(source);
  const { dirs, files } = await plan(boundary, target, boundary);
  for (const dir of dirs) await mkdir(dir, { recursive: true, mode: 0o755 });
  for (const file of files) await copyFile(file.from, file.to);
}
