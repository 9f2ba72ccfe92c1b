import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes under a folder (symlinks not followed), and whether the walk stopped at `maxEntries`. */
export async function diskUsage(root: string, maxEntries = 200_000): Promise<{ bytes: number; entries: number; partial: boolean }> {
  let bytes = 0;
  let entries = 0;
  const pending = [root];
  while (pending.length) {
    const dir = pending.pop()!;
    let names: Dirent[];
    try {
      names = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of names) {
      if (++entries > maxEntries) return { bytes, entries, partial: true };
      const path = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) bytes += (await lstat(path).catch(() => null))?.size ?? 0;
    }
  }
  return { bytes, entries, partial: false };
}
