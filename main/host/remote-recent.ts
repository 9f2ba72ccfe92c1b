import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { RecentRemoteFolder } from '#protocol';
import { RemoteHostText, RemotePath } from '#protocol/schemas/remote';

// The remote folders the window opened, newest first, in ~/.deft/remote-recent.json. The file is this machine's
// own, but it is read as untrusted: an entry that is not a host and an absolute one-line path is dropped.

const MAX_RECENT = 12;
const Entry = z.object({ host: RemoteHostText, path: RemotePath }).strict();

function file(home: string): string {
  return join(home, 'remote-recent.json');
}

/** The remembered folders (valid entries only), each with its label `host:/path`. */
export async function readRecentRemotes(home: string): Promise<RecentRemoteFolder[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file(home), 'utf8'));
  } catch {
    return [];
  }
  const list = Array.isArray((raw as { folders?: unknown })?.folders) ? (raw as { folders: unknown[] }).folders : [];
  const found: RecentRemoteFolder[] = [];
  for (const item of list.slice(0, MAX_RECENT)) {
    const entry = Entry.safeParse(item);
    if (entry.success) found.push({ ...entry.data, label: `${entry.data.host}:${entry.data.path}` });
  }
  return found;
}

/** Put `host:/path` first in the list (once), keeping at most a dozen. */
export async function rememberRemote(home: string, host: string, path: string): Promise<void> {
  const entry = Entry.safeParse({ host, path });
  if (!entry.success) return;
  const rest = (await readRecentRemotes(home)).filter((r) => !(r.host === host && r.path === path)).map(({ host: h, path: p }) => ({ host: h, path: p }));
  const folders = [entry.data, ...rest].slice(0, MAX_RECENT);
  await mkdir(home, { recursive: true, mode: 0o700 });
  const temp = `${file(home)}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify({ folders }, null, 2) + '\n', { mode: 0o600 });
  await rename(temp, file(home));
}
