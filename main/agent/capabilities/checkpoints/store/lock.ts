import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { processAlive } from '#infra/platform/process-alive';

/** How long a store stays busy before an operation gives up waiting for it. */
const WAIT_LIMIT_MS = 120_000;
const POLL_MS = 40;
/** An empty lock file is being written by its owner; one this old never will be. */
const TORN_AFTER_MS = 2_000;

interface LockOwner {
  pid: number;
  host: string;
  token: string;
}

/** In-process queues, one per lock file: operations of one process on one store run one at a time. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Run `work` holding the store's lock: first in this process (a queue per lock file), then across
 * processes (a lock file naming its owner's pid). A lock left by a process that died — a kill -9 in
 * the middle of a checkpoint — is taken over; one held by a live process is waited for.
 */
export function withLock<T>(lockFile: string, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(lockFile) ?? Promise.resolve();
  const run = previous
    .catch(() => {})
    .then(async () => {
      const release = await acquire(lockFile);
      try {
        return await work();
      } finally {
        await release();
      }
    });
  const tail = run.catch(() => {});
  queues.set(lockFile, tail);
  void tail.then(() => {
    if (queues.get(lockFile) === tail) queues.delete(lockFile);
  });
  return run;
}

async function acquire(lockFile: string): Promise<() => Promise<void>> {
  const me: LockOwner = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') };
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lockFile, 'wx', 0o600);
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      return async () => {
        // Only our own lock is removed (it may have been taken over if we were thought dead).
        if ((await readOwner(lockFile))?.token === me.token) await rm(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(lockFile);
    if (owner === undefined) continue; // it went away meanwhile
    if (owner ? owner.host === me.host && !processAlive(owner.pid) : await olderThan(lockFile, TORN_AFTER_MS)) {
      // Dead, or unreadable long after it was made (torn by a crash between create and write). Remove it only if it is still
      // the same lock, so a live lock taken meanwhile by another process is not removed.
      const again = await readOwner(lockFile);
      if (again === undefined || again?.token === owner?.token) await rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() - started > WAIT_LIMIT_MS)
      throw new Error(`The checkpoint store is busy: process ${owner?.pid ?? '?'} has held ${lockFile} for over ${WAIT_LIMIT_MS / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The lock's owner; null when the file is unreadable as a lock; undefined when there is no file. */
async function readOwner(lockFile: string): Promise<LockOwner | null | undefined> {
  let text: string;
  try {
    text = await readFile(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    return typeof parsed.pid === 'number' && typeof parsed.token === 'string'
      ? { pid: parsed.pid, host: String(parsed.host ?? ''), token: parsed.token }
      : null;
  } catch {
    return null;
  }
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return true;
  }
}
