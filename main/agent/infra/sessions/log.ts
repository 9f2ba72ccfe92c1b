import { appendFile, open, readFile } from 'node:fs/promises';
import { SessionEvent } from '../../../../protocol';
import type { ModelMessage } from '../providers/types';
import type { LogRecord } from './records';
import { Timeline } from './timeline';

export interface Replay {
  header: Extract<LogRecord, { r: 'header' }> | null;
  events: SessionEvent[];
  /** What the model reads and the session state, compactions and undos applied. */
  timeline: Timeline;
  /** Unreadable lines, described for the user. A torn last line is not a problem: it is expected after a crash. */
  problems: string[];
}

/** Rebuild a session from its log. Never throws on content; a missing file is an empty replay. */
export async function replayLog(path: string): Promise<Replay> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { header: null, events: [], timeline: new Timeline(), problems: [] };
    throw error;
  }
  return parseLog(text);
}

export function parseLog(text: string): Replay {
  const replay: Replay = { header: null, events: [], timeline: new Timeline(), problems: [] };
  const lines = text.split('\n');
  const endsClean = text.endsWith('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const isLast = i === lines.length - 1 || (i === lines.length - 2 && endsClean && lines[lines.length - 1] === '');
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      if (isLast && !endsClean) continue; // torn final write
      replay.problems.push(`Line ${i + 1} of the session log is not valid JSON and was skipped.`);
      continue;
    }
    switch (record?.r) {
      case 'header':
        replay.header = record;
        break;
      case 'event': {
        const parsed = SessionEvent.safeParse(record.e);
        if (parsed.success) replay.events.push(parsed.data);
        else replay.problems.push(`Line ${i + 1} of the session log holds an event this version cannot read and was skipped.`);
        break;
      }
      case 'context':
        if (isMessage(record.m)) replay.timeline.append(record.m);
        else replay.problems.push(`Line ${i + 1} of the session log holds a malformed message and was skipped.`);
        break;
      case 'state':
        replay.timeline.set(record.key, record.value);
        break;
      case 'compaction':
        if (Array.isArray(record.context) && record.context.every(isMessage)) replay.timeline.compact(record.context);
        else replay.problems.push(`Line ${i + 1} of the session log holds a malformed compaction and was skipped; the model reads the history from before it.`);
        break;
      case 'undo':
        if (!Array.isArray(record.turnIds) || !replay.timeline.undo(record.turnIds)) {
          replay.problems.push(`Line ${i + 1} of the session log holds an undo that does not match the turns before it and was skipped.`);
        }
        break;
      case 'redo':
        if (!Array.isArray(record.turnIds) || !replay.timeline.redo(record.turnIds)) {
          replay.problems.push(`Line ${i + 1} of the session log holds a redo that does not follow its undo and was skipped.`);
        }
        break;
      default:
        replay.problems.push(`Line ${i + 1} of the session log has an unknown record type and was skipped.`);
    }
  }
  return replay;
}

function isMessage(m: unknown): m is ModelMessage {
  return Boolean(m) && typeof m === 'object' && 'role' in (m as object);
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

  constructor(readonly path: string) {}

  append(record: LogRecord): void {
    this.buffer.push(stringifyRecord(record) + '\n');
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
