import { open, stat } from 'node:fs/promises';
import type { SessionEvent } from '#protocol';
import { type EventLine, loadStrictEventCheck, readEventLine } from './log-scan';

/** A log file's length in bytes (0 when it does not exist). */
export async function fileLength(path: string): Promise<number> {
  return (await stat(path).catch(() => null))?.size ?? 0;
}

/**
 * The events on these indexed lines (in file order), read in one go from the span they cover. An entry
 * is null where the line no longer reads as its event (the file changed under the index).
 */
export async function readLogLines(path: string, lines: readonly EventLine[], trusted: boolean): Promise<Array<SessionEvent | null>> {
  const unread = lines.filter((l) => !l.event);
  if (!unread.length) return lines.map((l) => l.event!);
  if (!trusted) await loadStrictEventCheck();
  const from = unread[0]!.start;
  const span = await readLogSpan(path, from, unread[unread.length - 1]!.end);
  return lines.map((line) => line.event ?? (line.end - from <= span.length ? readEventLine(span, from, line, trusted) : null));
}

/** Bytes [from, to) of a log file; shorter where the file is. */
export async function readLogSpan(path: string, from: number, to: number): Promise<Buffer> {
  const buffer = Buffer.alloc(to - from);
  const handle = await open(path, 'r');
  try {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, from);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
