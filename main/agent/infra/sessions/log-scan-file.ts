import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { logReadBack } from './log-messages';
import { Timeline } from './timeline';
import { type LogScan, applyHeldSlice, finishScan, loadStrictEventCheck, needsStrictCheck, scanLine, startScan, tailOffset } from './log-scan';

/** How much of a log is read at a time: a scan holds one chunk (and a line longer than it), not the file. */
const CHUNK = 1 << 20;
/** How many held records are applied at a time at the end of a scan (each slice a few milliseconds). */
const HELD_SLICE = 2000;

/**
 * scanLog for a log file, read in chunks so that a long session's log is never in memory whole. Reads up
 * to `until` (a line's start) when given. A missing file scans as empty. With `leaveMessages`, the timeline
 * holds large messages as where they sit in the file, read back when its context is asked for. `heldCopyBudget`:
 * what the copies of held records may take (bytes) before the rest are read again when they count (see log-scan.ts).
 */
export async function scanLogFile(
  path: string,
  options: { indexFrom?: number; until?: number; chunk?: number; leaveMessages?: boolean; heldCopyBudget?: number; eventsOnly?: boolean } = {},
): Promise<LogScan & { size: number }> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  // Held records are read again from the file when they count, not copied (they may be most of the log): into one
  // buffer, reused from one read to the next (what is read is parsed before the next read).
  let scratch = Buffer.alloc(0);
  const reread = (start: number, end: number) => {
    if (scratch.length < end - start) scratch = Buffer.allocUnsafe(Math.max(end - start, Math.min(2 * scratch.length, CHUNK)));
    return scratch.subarray(0, handle ? readSync(handle.fd, scratch, 0, end - start, start) : 0);
  };
  // A session's timeline leaves large messages in the file until the model needs them (Timeline, logReadBack).
  const scan = startScan(options.indexFrom ?? 0, reread, options.leaveMessages ? new Timeline(logReadBack(path)) : undefined, options.heldCopyBudget);
  if (options.eventsOnly) scan.eventsOnly = true;
  if (!handle) return { ...finishScan(scan), size: 0 };
  try {
    const limit = Math.min(options.until ?? Infinity, (await handle.stat()).size);
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(options.chunk ?? CHUNK, Math.max(limit, 1)));
    let base = 0;
    let have = 0;
    let lineNo = 0;
    for (;;) {
      if (have === buffer.length) buffer = grown(buffer, have);
      const want = Math.min(buffer.length - have, limit - base - have);
      const { bytesRead } = want > 0 ? await handle.read(buffer, have, want, base + have) : { bytesRead: 0 };
      if (base === 0 && have === 0 && needsStrictCheck(buffer.subarray(0, bytesRead))) await loadStrictEventCheck();
      have += bytesRead;
      let start = 0;
      for (let feed = buffer.indexOf(0x0a, start); feed !== -1 && feed < have; feed = buffer.indexOf(0x0a, start)) {
        scanLine(scan, buffer, start, feed, base, ++lineNo, false);
        start = feed + 1;
      }
      if (bytesRead === 0) {
        // What is left has no line feed: a torn last line.
        if (start < have) scanLine(scan, buffer, start, have, base, ++lineNo, true);
        // What is still held is applied a slice at a time, the process answering others in between.
        for (let from = 0; applyHeldSlice(scan, from, HELD_SLICE); from += HELD_SLICE) await setImmediate();
        return { ...finishScan(scan), size: base + have };
      }
      buffer.copy(buffer, 0, start, have);
      base += start;
      have -= start;
    }
  } finally {
    await handle.close();
  }
}

function grown(buffer: Buffer, have: number): Buffer {
  const bigger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(bigger, 0, 0, have);
  return bigger;
}

/** tailOffset for a log file, reading back from its end only as far as the last turns reach. */
export async function tailOffsetOfFile(path: string, turns: number, firstSpan = 256 * 1024): Promise<number> {
  const handle = await open(path, 'r').catch(() => null);
  if (!handle) return 0;
  try {
    const size = (await handle.stat()).size;
    for (let span = Math.min(size, firstSpan); ; span = Math.min(size, span * 4)) {
      const buffer = Buffer.alloc(span);
      const { bytesRead } = await handle.read(buffer, 0, span, size - span);
      const offset = tailOffset(buffer.subarray(0, bytesRead), turns);
      // Found within the span (a match needs the line feed before it, so one at the span's very start is not trusted).
      if (offset > 1) return size - span + offset;
      if (span === size) return 0;
    }
  } finally {
    await handle.close();
  }
}
