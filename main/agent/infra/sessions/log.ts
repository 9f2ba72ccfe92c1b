import { appendFile, open } from 'node:fs/promises';
import type { SessionEvent } from '#protocol';
import { loadStrictEventCheck, needsStrictCheck, readEventLine, scanLog } from './log-scan';
import type { LogRecord } from './records';
import type { Timeline } from './timeline';

export interface Replay {
  header: Extract<LogRecord, { r: 'header' }> | null;
  events: SessionEvent[];
  /** What the model reads and the session state, compactions and undos applied. */
  timeline: Timeline;
  /** Unreadable lines, described for the user. A torn last line is not a problem: it is expected after a crash. */
  problems: string[];
}

/** A whole log with every event parsed (a session opens from `scanLog`'s index instead; this is for tools and tests). */
export async function parseLog(text: string | Buffer): Promise<Replay> {
  const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (needsStrictCheck(buffer)) await loadStrictEventCheck();
  const scan = scanLog(buffer);
  const events: SessionEvent[] = [];
  for (const line of scan.lines) {
    const event = readEventLine(buffer, 0, line, scan.trusted);
    if (event) events.push(event);
    else scan.problems.push(`An event of the session log (seq ${line.seq}) cannot be read and was skipped.`);
  }
  return { header: scan.header, events, timeline: scan.timeline, problems: scan.problems };
}

/** A record as one JSON line. One too deeply nested to write is written with its deep parts replaced, never thrown. */
export function stringifyRecord(record: LogRecord): string {
  try {
    return JSON.stringify(record);
  } catch {
    return JSON.stringify(shallow(record, 64));
  }
}

function shallow(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth <= 0) return '[nested too deeply to record]';
  if (Array.isArray(value)) return value.map((v) => shallow(v, depth - 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shallow(v, depth - 1)]));
}

/** Appends records; nothing reaches disk until `flush`, which writes everything buffered in one append. */
export class LogWriter {
  private buffer: string[] = [];
  private chain: Promise<void> = Promise.resolve();
  /** The file's length once everything appended so far is written: where the next record starts. */
  private end = 0;

  constructor(readonly path: string) {}

  /** Buffer a record; returns where its line will sit in the file (bytes, line feed excluded). */
  append(record: LogRecord): { start: number; end: number } {
    const line = stringifyRecord(record) + '\n';
    this.buffer.push(line);
    const start = this.end;
    this.end += Buffer.byteLength(line);
    return { start, end: this.end - 1 };
  }

  /** The file is this long now (it was read, or its tail repaired): later records are placed after it. */
  startAt(length: number): void {
    this.end = length + this.buffer.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
  }

  /**
   * A crash mid-append leaves the log without its final line feed, and the next append would run on
   * into that line, making it (and the first new record) unreadable. Before appending again: a torn
   * record (replay ignored it) is cut off; a complete one that only lacks its line feed (replay used
   * it) gets one.
   */
  async endTornTail(): Promise<void> {
    let handle;
    try {
      handle = await open(this.path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      const chunk = Buffer.alloc(64 * 1024);
      const tail: Buffer[] = [];
      let lineStart = 0;
      for (let end = size; end > 0; ) {
        const from = Math.max(0, end - chunk.length);
        const { bytesRead } = await handle.read(chunk, 0, end - from, from);
        const feed = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
        if (end === size && feed === bytesRead - 1) return;
        if (feed !== -1) {
          tail.unshift(Buffer.from(chunk.subarray(feed + 1, bytesRead)));
          lineStart = from + feed + 1;
          break;
        }
        tail.unshift(Buffer.from(chunk.subarray(0, bytesRead)));
        end = from;
      }
      if (size === 0) return;
      let complete = true;
      try {
        JSON.parse(Buffer.concat(tail).toString('utf8'));
      } catch {
        complete = false;
      }
      if (complete) await handle.write('\n', size);
      else await handle.truncate(lineStart);
    } finally {
      await handle.close();
    }
  }

  /** Resolves once everything flushed so far is in the file. */
  written(): Promise<void> {
    return this.chain;
  }

  get pending(): number {
    return this.buffer.length;
  }

  flush(): Promise<void> {
    if (this.buffer.length === 0) return this.chain;
    const data = this.buffer.join('');
    this.buffer = [];
    const write = this.chain.then(() => appendFile(this.path, data, { encoding: 'utf8', mode: 0o600 }));
    this.chain = write.catch(() => {});
    return write;
  }
}
