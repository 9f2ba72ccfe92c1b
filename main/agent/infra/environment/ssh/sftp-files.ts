import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { SFTPWrapper, Stats } from 'ssh2';
import { EnvironmentError, type RandomReader } from '#contract/environment';

/**
 * Reads and writes over SFTP with their requests pipelined: SFTP answers requests in the order they were sent, so
 * every request that does not need an earlier one's answer is sent at once, and an operation waits only for what it
 * must (a handle before its reads, the folder's real path before the rename). Close is sent and not waited for.
 */

/** One SFTP request on the connection the file belongs to (counted by the environment). */
export type SftpCall = <T>(
  op: string,
  path: string,
  run: (sftp: SFTPWrapper, done: (error: unknown, value?: T) => void) => void,
  /** Sent and not waited for (not counted as a round trip). */
  unwaited?: boolean,
) => Promise<T>;

/** Read with the file's fstat: a file up to this size is read whole in the round trip that learns its size. */
export const PREFETCH_BYTES = 64 * 1024;
const WRITE_CHUNK = 32 * 1024;
/** A read of a large file sends this many chunk requests at a time. */
const READS_IN_FLIGHT = 32;

const close = (call: SftpCall, handle: Buffer, path: string): Promise<void> => {
  // Sent, not waited for: the server handles it before anything sent later, and an error closing is nothing to act on.
  void call<void>('close', path, (sftp, done) => sftp.close(handle, done), true).catch(() => {});
  return Promise.resolve();
};

const readAt = (call: SftpCall, handle: Buffer, path: string, into: Buffer, offset: number, length: number, position: number) =>
  call<number>('read', path, (sftp, done) => sftp.read(handle, into, offset, length, position, (error, bytes) => done(error, bytes)));

/** An open file with its size and first bytes: open, then fstat and the first read sent together. */
export async function openReader(call: SftpCall, path: string): Promise<RandomReader & { stats: Stats; head: Buffer; whole: boolean }> {
  const handle = await call<Buffer>('open', path, (sftp, done) => sftp.open(path, 'r', done));
  const first = Buffer.allocUnsafe(PREFETCH_BYTES);
  const [stats, got] = await Promise.allSettled([
    call<Stats>('fstat', path, (sftp, done) => sftp.fstat(handle, done)),
    readAt(call, handle, path, first, 0, PREFETCH_BYTES, 0),
  ]);
  if (stats.status === 'rejected' || stats.value.isDirectory() || got.status === 'rejected') {
    await close(call, handle, path);
    if (stats.status === 'rejected') throw stats.reason;
    if (stats.value.isDirectory()) throw new EnvironmentError('EISDIR', `${path} is a folder.`, path);
    throw (got as PromiseRejectedResult).reason;
  }
  const head = first.subarray(0, got.value);
  // A short first read reached the end: the file is read as it was then (a later read past it does not ask again).
  const whole = got.value < PREFETCH_BYTES;
  return {
    stats: stats.value,
    head,
    whole,
    size: stats.value.size,
    read: async (into, position, length) => {
      const wanted = Math.min(length, into.length);
      let total = position < head.length ? head.copy(into, 0, position, Math.min(head.length, position + wanted)) : 0;
      if (whole) return total;
      // The server may return less than asked (its packet limit): read on until the span is filled or the file ends.
      while (total < wanted) {
        const bytes = await readAt(call, handle, path, into, total, wanted - total, position + total);
        if (!bytes) break;
        total += bytes;
      }
      return total;
    },
    close: () => close(call, handle, path),
  };
}

/** A whole file: one round trip for the handle, one for its size and first 64 KiB, then the rest's reads sent together. */
export async function readWhole(call: SftpCall, path: string): Promise<Buffer> {
  const reader = await openReader(call, path);
  try {
    if (reader.whole) return Buffer.from(reader.head);
    const parts: Buffer[] = [reader.head];
    let position = reader.head.length;
    // Up to the size fstat gave, in chunks sent together (a file that shrank meanwhile ends at the first short chunk).
    for (let end = false; !end && position < reader.size; ) {
      const batch: Promise<Buffer>[] = [];
      for (let i = 0; i < READS_IN_FLIGHT && position < reader.size; i++, position += PREFETCH_BYTES) {
        const chunk = Buffer.allocUnsafe(Math.min(PREFETCH_BYTES, reader.size - position));
        batch.push(reader.read(chunk, position, chunk.length).then((n) => chunk.subarray(0, n)));
      }
      for (const chunk of await Promise.all(batch)) {
        if (end) break;
        parts.push(chunk);
        if (chunk.length < PREFETCH_BYTES && position < reader.size) end = true;
      }
    }
    // A file whose size says nothing (0 for /proc files) is read on to its end.
    if (reader.size === 0)
      for (;;) {
        const chunk = Buffer.allocUnsafe(PREFETCH_BYTES);
        const n = await reader.read(chunk, position, PREFETCH_BYTES);
        if (!n) break;
        parts.push(chunk.subarray(0, n));
        position += n;
      }
    return Buffer.concat(parts);
  } finally {
    await reader.close();
  }
}

/** Every write of `bytes` (from `start`), then fsync (best effort), sent together; resolves once all are answered. */
function writesOf(call: SftpCall, handle: Buffer, path: string, bytes: Buffer, start: number): Promise<unknown> {
  const writes: Promise<unknown>[] = [];
  for (let at = 0; at < bytes.length; at += WRITE_CHUNK) {
    const length = Math.min(WRITE_CHUNK, bytes.length - at);
    writes.push(call<void>('write', path, (sftp, done) => sftp.write(handle, bytes, at, length, start + at, done)));
  }
  writes.push(call<void>('fsync', path, (sftp, done) => sftp.ext_openssh_fsync(handle, done)).catch(() => {}));
  return Promise.all(writes);
}

const asBytes = (data: string | Uint8Array) => (typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data));

/** Write in place: open, then the writes, fsync and close sent together (an append learns the size first). */
export async function writeInPlace(call: SftpCall, path: string, flags: 'w' | 'wx' | 'a', data: string | Uint8Array, mode?: number): Promise<void> {
  const bytes = asBytes(data);
  const handle = await call<Buffer>('open', path, (sftp, done) => sftp.open(path, flags, mode !== undefined ? { mode } : {}, done));
  try {
    const start = flags === 'a' ? (await call<Stats>('fstat', path, (sftp, done) => sftp.fstat(handle, done))).size : 0;
    await writesOf(call, handle, path, bytes, start);
  } finally {
    await close(call, handle, path);
  }
}

/** The refusal of a replace whose folder is not (or no longer) where it was resolved. */
export function folderMoved(path: string): EnvironmentError {
  return new EnvironmentError(
    'EXDEV',
    `The folder ${posix.dirname(path)} changed while ${posix.basename(path)} was being written (it was replaced, e.g. by a symlink), so nothing was written. Check the folder and try again.`,
    path,
  );
}

/**
 * Replace a file atomically in three round trips for an existing file: (1) its mode, its folder's real path and a
 * temp file beside it (created 0600, so nothing can open it wider before its mode is set); (2) the temp's mode,
 * the writes, fsync, close, and the folder's real path again; (3) the rename, and the file's stat after it.
 * A new file's temp is made again with 0666 (the umask applies, as locally): one round trip more. The folder's real
 * path is checked before the first byte is written and again after the last, right before the rename is sent; the
 * temp file is removed on any failure. Resolves to the file's stat after the rename (null when it is gone by then).
 */
export async function replaceWhole(call: SftpCall, path: string, data: string | Uint8Array): Promise<Stats | null> {
  const parent = posix.dirname(path);
  const moved = () => folderMoved(path);
  const realParent = () => call<string>('realpath', parent, (sftp, done) => sftp.realpath(parent, done)).catch(() => parent);
  const tempName = () => posix.join(parent, `.${posix.basename(path)}.deft-ssh-${randomBytes(5).toString('hex')}.tmp`);
  const create = (at: string, mode: number) => call<Buffer>('open', at, (sftp, done) => sftp.open(at, 'wx', { mode }, done));
  const unlink = (at: string, unwaited = false) => call<void>('unlink', at, (sftp, done) => sftp.unlink(at, done), unwaited).catch(() => {});
  const bytes = asBytes(data);

  let temp = tempName();
  const [existing, real, opened] = await Promise.allSettled([
    call<Stats>('stat', path, (sftp, done) => sftp.stat(path, done)),
    realParent(),
    create(temp, 0o600),
  ]);
  let handle = opened.status === 'fulfilled' ? opened.value : null;
  const giveUp = async (error: unknown): Promise<never> => {
    if (handle) {
      await close(call, handle, temp);
      await unlink(temp);
    }
    throw error;
  };
  if (real.status === 'fulfilled' && real.value !== parent) return giveUp(moved());
  if (opened.status === 'rejected') throw opened.reason;
  const mode = existing.status === 'fulfilled' ? existing.value.mode & 0o7777 : null;
  if (mode === null) {
    // A new file: its temp again, with the default mode less the umask there.
    const first = temp;
    void close(call, handle!, first);
    void unlink(first, true);
    temp = tempName();
    handle = null;
    handle = await create(temp, 0o666).catch(giveUp);
  }
  const open = handle!;
  handle = null;
  // In this order on the wire: the mode before any byte, the writes, fsync, close, then the folder checked again.
  const sent = Promise.allSettled([
    mode !== null ? call<void>('fsetstat', temp, (sftp, done) => sftp.fsetstat(open, { mode }, done)) : Promise.resolve(),
    writesOf(call, open, temp, bytes, 0),
  ]);
  void close(call, open, temp);
  const checked = realParent();
  const failed = (await sent).find((r) => r.status === 'rejected');
  const folder = await checked;
  if (failed || folder !== parent) {
    await unlink(temp);
    throw failed ? failed.reason : moved();
  }
  const [renamed, stats] = await Promise.allSettled([
    call<void>('rename', path, (sftp, done) => sftp.ext_openssh_rename(temp, path, done)),
    call<Stats>('stat', path, (sftp, done) => sftp.stat(path, done)),
  ]);
  if (renamed.status === 'rejected') {
    await unlink(temp);
    throw renamed.reason;
  }
  return stats.status === 'fulfilled' ? stats.value : null;
}
