import { PAGED_EVENT_TYPES, SessionEvent, type SessionEventType } from '../../../../protocol';
import type { ModelMessage } from '../providers/types';
import { LOG_VERSION, type LogRecord } from './records';
import { Timeline } from './timeline';

/** Where one event sits in the log file (bytes, line feed excluded), so it can be read again without the rest. */
export interface EventLine {
  seq: number;
  start: number;
  end: number;
  type: string;
  /** Parsed in the scan: every event that carries state (not in PAGED_EVENT_TYPES) and any the fast path could not place. */
  event?: SessionEvent;
}

/** A session log read once: the model's timeline, and an index of its events instead of the events themselves. */
export interface LogScan {
  header: Extract<LogRecord, { r: 'header' }> | null;
  /** Every readable event line, in file order. */
  lines: EventLine[];
  /** What the model reads and the session state, compactions and undos applied. */
  timeline: Timeline;
  /** Unreadable lines, described for the user. A torn last line is not a problem: it is expected after a crash. */
  problems: string[];
  /**
   * Written by this version of Deft (its header says so): its events are not validated again. A log of
   * another version is validated against the protocol event by event, as each is read.
   */
  trusted: boolean;
}

const EVENT_PREFIX = Buffer.from('{"r":"event","e":{"type":"');
/** How this Deft writes an event line's end (emit adds sessionId, seq, at last; merged deltas add fromSeq). */
const SEQ_AT_END = /,"seq":(\d+),"at":-?\d+(?:\.\d+)?(?:,"fromSeq":\d+)?\}\}$/;

/**
 * Read a log once. Lines that only make the conversation's rows are indexed without being parsed (their
 * type and seq are read from where this Deft writes them; anything else is parsed in full), so opening a
 * long session costs little more than reading the file.
 */
export function scanLog(buffer: Buffer): LogScan {
  const scan: LogScan = { header: null, lines: [], timeline: new Timeline(), problems: [], trusted: false };
  const endsClean = buffer.length > 0 && buffer[buffer.length - 1] === 0x0a;
  let lineNo = 0;
  for (let start = 0; start < buffer.length; ) {
    const feed = buffer.indexOf(0x0a, start);
    const end = feed === -1 ? buffer.length : feed;
    const isLast = feed === -1 || feed === buffer.length - 1;
    lineNo++;
    scanLine(scan, buffer, start, end, lineNo, isLast && !endsClean);
    start = end + 1;
  }
  return scan;
}

function scanLine(scan: LogScan, buffer: Buffer, start: number, end: number, lineNo: number, torn: boolean): void {
  if (end - start === 0) return;
  const quick = quickEvent(buffer, start, end);
  if (quick && PAGED_EVENT_TYPES.has(quick.type as SessionEventType)) {
    scan.lines.push({ seq: quick.seq, start, end, type: quick.type });
    return;
  }
  const text = buffer.toString('utf8', start, end);
  if (text.trim() === '') return;
  let record: LogRecord;
  try {
    record = JSON.parse(text) as LogRecord;
  } catch {
    if (!torn) scan.problems.push(`Line ${lineNo} of the session log is not valid JSON and was skipped.`);
    return;
  }
  applyRecord(scan, record, lineNo, start, end);
}

/** The type and seq of an event line as this Deft writes it, without parsing it; null when it is not laid out so. */
function quickEvent(buffer: Buffer, start: number, end: number): { type: string; seq: number } | null {
  const from = start + EVENT_PREFIX.length;
  if (end - from < 16 || buffer.compare(EVENT_PREFIX, 0, EVENT_PREFIX.length, start, from) !== 0) return null;
  const quote = buffer.indexOf(0x22, from);
  if (quote === -1 || quote >= end) return null;
  const match = SEQ_AT_END.exec(buffer.toString('latin1', Math.max(quote, end - 96), end));
  return match ? { type: buffer.toString('latin1', from, quote), seq: Number(match[1]) } : null;
}

function applyRecord(scan: LogScan, record: LogRecord, lineNo: number, start: number, end: number): void {
  const { timeline, problems } = scan;
  switch (record?.r) {
    case 'header':
      scan.header = record;
      scan.trusted = record.version === LOG_VERSION;
      break;
    case 'event': {
      const event = checkEvent(record.e, scan.trusted);
      if (event) scan.lines.push({ seq: event.seq, start, end, type: event.type, ...(PAGED_EVENT_TYPES.has(event.type) ? {} : { event }) });
      else problems.push(`Line ${lineNo} of the session log holds an event this version cannot read and was skipped.`);
      break;
    }
    case 'context':
      if (isMessage(record.m)) timeline.append(record.m);
      else problems.push(`Line ${lineNo} of the session log holds a malformed message and was skipped.`);
      break;
    case 'state':
      timeline.set(record.key, record.value);
      break;
    case 'compaction':
      if (Array.isArray(record.context) && record.context.every(isMessage)) timeline.compact(record.context);
      else problems.push(`Line ${lineNo} of the session log holds a malformed compaction and was skipped; the model reads the history from before it.`);
      break;
    case 'undo':
      if (!Array.isArray(record.turnIds) || !timeline.undo(record.turnIds)) {
        problems.push(`Line ${lineNo} of the session log holds an undo that does not match the turns before it and was skipped.`);
      }
      break;
    case 'redo':
      if (!Array.isArray(record.turnIds) || !timeline.redo(record.turnIds)) {
        problems.push(`Line ${lineNo} of the session log holds a redo that does not follow its undo and was skipped.`);
      }
      break;
    default:
      problems.push(`Line ${lineNo} of the session log has an unknown record type and was skipped.`);
  }
}

/**
 * An event read back from a log. What this Deft wrote (`trusted`) gets a cheap shape check only; from any
 * other log it must parse against the protocol.
 */
export function checkEvent(value: unknown, trusted: boolean): SessionEvent | null {
  if (trusted) {
    const e = value as { type?: unknown; seq?: unknown } | null;
    return e && typeof e === 'object' && typeof e.type === 'string' && Number.isInteger(e.seq) ? (value as SessionEvent) : null;
  }
  const parsed = SessionEvent.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The event on one indexed line of `buffer` (which starts at byte `offset` of the log); null when it no longer reads as that event. */
export function readEventLine(buffer: Buffer, offset: number, line: EventLine, trusted: boolean): SessionEvent | null {
  if (line.event) return line.event;
  let record: LogRecord;
  try {
    record = JSON.parse(buffer.toString('utf8', line.start - offset, line.end - offset)) as LogRecord;
  } catch {
    return null;
  }
  const event = record?.r === 'event' ? checkEvent(record.e, trusted) : null;
  return event && event.seq === line.seq ? event : null;
}

function isMessage(m: unknown): m is ModelMessage {
  return Boolean(m) && typeof m === 'object' && 'role' in (m as object);
}
