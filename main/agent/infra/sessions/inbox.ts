import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import { processAlive } from '#infra/platform/process-alive';
import { writeFileAtomic } from '../platform/files';
import { isValidSessionId, workspaceSessionsDir } from './store';

/**
 * A mailbox for the sessions of one workspace on this machine: `<home>/sessions/<workspace>/.inbox/`, one file per
 * message, `<sessionId>.<stamp>-<hex>.json`. Another core (another window, a CLI process) posts a prompt for one of
 * them — the conflict handoff of a worktree (docs/worktrees.md) — and the core that has the workspace open takes it
 * exactly once: it claims a message by renaming it (atomic; a second taker finds it gone), puts it in the session's
 * prompt queue (written to the session's log), and only then removes it. The files are input from another process:
 * names, size, kind and shape are checked, links are never followed, and a prompt is only ever text for the model.
 */
export const INBOX_DIR = '.inbox';
/** A message's file at most (bytes), and at most this many waiting per workspace. */
export const INBOX_MAX_BYTES = 64 * 1024;
export const INBOX_MAX_WAITING = 32;
const MAX_TEXT = 32_000;

/** A message in a workspace's mailbox, built the first time one is posted or read (a run with none never builds it). */
const inboxMessage = builtOnce(() =>
  z
    .object({
      v: z.literal(1),
      kind: z.literal('prompt'),
      sessionId: z.string().refine(isValidSessionId),
      text: z.string().min(1).max(MAX_TEXT),
      /** Who sent it, for the session's log and the window (e.g. "the worktree conflict handoff"). */
      from: z.string().max(200),
      createdAt: z.number().int().nonnegative(),
    })
    .strict(),
);
export type InboxMessage = z.infer<ReturnType<typeof inboxMessage>>;

const MESSAGE_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,99})\.(\d{1,16}-[0-9a-f]{12})\.json$/;
const CLAIMED_FILE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,99})\.(\d{1,16}-[0-9a-f]{12})\.json\.claim-(\d{1,10})$/;

export function inboxDir(home: string, workspaceId: string): string {
  return join(workspaceSessionsDir(home, workspaceId), INBOX_DIR);
}

/** The mailbox folder, made owner-only; refused when it is a link or not this user's. */
export async function ensureInbox(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory() || info.isSymbolicLink()) throw new Error(`${dir} is not a folder.`);
  if (typeof process.getuid === 'function' && info.uid !== process.getuid()) throw new Error(`${dir} belongs to another user.`);
}

/** Post a prompt for session `sessionId` of the workspace whose mailbox is `dir`. Throws when the mailbox is full. */
export async function postToInbox(dir: string, message: Omit<InboxMessage, 'v' | 'kind'>): Promise<string> {
  const parsed = inboxMessage().parse({ v: 1, kind: 'prompt', ...message });
  await ensureInbox(dir);
  if ((await readdir(dir)).filter((n) => MESSAGE_FILE.test(n)).length >= INBOX_MAX_WAITING)
    throw new Error('the session mailbox is full: open that session to take what waits there.');
  const name = `${parsed.sessionId}.${parsed.createdAt}-${randomBytes(6).toString('hex')}.json`;
  await writeFileAtomic(join(dir, name), JSON.stringify(parsed) + '\n', 0o600);
  return name;
}

/** A message claimed by this process: `done` removes it once it is safely in the session's queue. */
export interface ClaimedMessage {
  message: InboxMessage;
  done: () => Promise<void>;
}

/** The session ids messages wait for, oldest message first (claims left by a process that died are put back first). */
export async function waitingSessions(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  for (const name of names) {
    const claimed = CLAIMED_FILE.exec(name);
    if (!claimed || processAlive(Number(claimed[3]))) continue;
    // Its taker died before the message reached the session's log: it waits again (rename: one taker gets it back).
    await rename(join(dir, name), join(dir, `${claimed[1]}.${claimed[2]}.json`)).catch(() => {});
  }
  const waiting = (await readdir(dir).catch(() => [] as string[]))
    .map((n) => MESSAGE_FILE.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[2]!.split('-')[0]) - Number(b[2]!.split('-')[0]));
  return [...new Set(waiting.map((m) => m[1]!))];
}

/**
 * Claim the messages waiting for `sessionId`, oldest first. Each is renamed to a claim of this process (only one
 * process wins a rename), then read without following links, bounded and validated; one that fails is removed.
 */
export async function claimInbox(dir: string, sessionId: string): Promise<ClaimedMessage[]> {
  if (!isValidSessionId(sessionId)) return [];
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => MESSAGE_FILE.exec(n)?.[1] === sessionId)
    .sort((a, b) => Number(MESSAGE_FILE.exec(a)![2]!.split('-')[0]) - Number(MESSAGE_FILE.exec(b)![2]!.split('-')[0]));
  const claimed: ClaimedMessage[] = [];
  for (const name of names) {
    const claim = join(dir, `${name}.claim-${process.pid}`);
    try {
      await rename(join(dir, name), claim);
    } catch {
      continue; // another core took it
    }
    const message = await readMessage(claim);
    if (!message || message.sessionId !== sessionId) {
      await rm(claim, { force: true });
      continue;
    }
    claimed.push({ message, done: () => rm(claim, { force: true }) });
  }
  return claimed;
}

/**
 * The messages waiting in the mailbox (not claimed), oldest first, read as a taker reads them (no link followed,
 * bounded, zod-checked; a file that fails is skipped) — and left where they are: nothing is claimed or removed.
 */
export async function peekInbox(dir: string): Promise<InboxMessage[]> {
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => MESSAGE_FILE.test(n))
    .sort((a, b) => Number(MESSAGE_FILE.exec(a)![2]!.split('-')[0]) - Number(MESSAGE_FILE.exec(b)![2]!.split('-')[0]))
    .slice(0, INBOX_MAX_WAITING);
  const read = await Promise.all(names.map(async (name) => ({ name, message: await readMessage(join(dir, name)) })));
  return read.filter((r) => r.message !== null && r.message.sessionId === MESSAGE_FILE.exec(r.name)![1]).map((r) => r.message!);
}

async function readMessage(path: string): Promise<InboxMessage | null> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = await handle.stat();
    if (!info.isFile() || info.size > INBOX_MAX_BYTES) return null;
    const parsed = inboxMessage().safeParse(JSON.parse(await handle.readFile('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  } finally {
    await handle?.close();
  }
}
