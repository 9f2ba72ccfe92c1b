import type { SessionEvent, SessionEventType, Usage } from '#protocol';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { PAGED_EVENT_TYPES } from '#protocol/helpers/paging';
import type { ModelMessage } from '#contract/model';
import { LOG_VERSION, type LogRecord } from './records';
import { HeldRecords } from './held-records';
import { Timeline } from './timeline';

/**
 * Records that only shape what the model reads (messages, undos, redos, and state set after one of those),
 * held as positions, not parsed: a later compaction that lists its calls replaces them (then only their
 * state is applied), anything else makes them count, in order.
 */
const HELD = ['{"r":"context",', '{"r":"undo",', '{"r":"redo",'].map((prefix) => Buffer.from(prefix));
const STATE = Buffer.from('{"r":"state",');
/** A held record shorter than this (bytes) is copied; a longer one is read again from the log when it counts. */
const HELD_COPY = 256;
/**
 * What the held records' copies may take in all (bytes): past it, they are held as where they sit and read again
 * when they count, a span of the log at a time. A log with no compaction holds every message to its end: with
 * copies, the heap would have grown by all of them at once, on top of what is kept.
 */
const HELD_COPY_BUDGET = 1 << 20;
/** A read of held records again: at most this many bytes at a time, and no gap longer than HELD_GAP in it. */
const HELD_SPAN = 1 << 20;
const HELD_GAP = 64 * 1024;
const COMPACTION = Buffer.from('{"r":"compaction",');
/** A snapshot only shortens a window's first open (tail-view.ts): a scan checks that it reads, nothing more. */
export const SNAPSHOT = Buffer.from('{"r":"snapshot",');

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
  /** `lines` holds every event line from this byte on, and before it only the events that carry state. */
  indexedFrom: number;
  /** The seq of the log's first event (null: none), indexed or not. */
  firstSeq: number | null;
  /**
   * The events that carry state before `indexedFrom`, compacted as the scan goes (compactEarlierState): their
   * lines there are indexed without them, so a long log's are never all in memory at once.
   */
  earlier: SessionEvent[];
  /** The usage events' totals merged in order (the session's usage total). */
  usage: Partial<Usage>;
  /** Where the log's last snapshot line starts (absent: it has none). */
  snapshotAt?: number;
}

const EVENT_PREFIX = Buffer.from('{"r":"event","e":{"type":"');
/** How this Deft writes an event line's end (emit adds sessionId, seq, at last; merged deltas add fromSeq). */
const SEQ_AT_END = /,"seq":(\d+),"at":-?\d+(?:\.\d+)?(?:,"fromSeq":\d+)?\}\}$/;

/**
 * Read a log once. Lines that only make the conversation's rows are indexed without being parsed (their
 * type and seq are read from where this Deft writes them; anything else is parsed in full), so opening a
 * long session costs little more than reading the file. The messages, undos and redos that a later
 * compaction replaced are not parsed at all when that compaction lists their tool calls (this Deft's do):
 * a malformed one of them is then not reported either, as it no longer matters.
 */
export function scanLog(buffer: Buffer, indexFrom = 0): LogScan {
  const scan = startScan(indexFrom, (start, end) => buffer.subarray(start, end));
  const endsClean = buffer.length > 0 && buffer[buffer.length - 1] === 0x0a;
  let lineNo = 0;
  for (let start = 0; start < buffer.length; ) {
    const feed = buffer.indexOf(0x0a, start);
    const end = feed === -1 ? buffer.length : feed;
    const isLast = feed === -1 || feed === buffer.length - 1;
    scanLine(scan, buffer, start, end, 0, ++lineNo, isLast && !endsClean);
    start = end + 1;
  }
  return finishScan(scan);
}

/** A scan in progress: lines are given to scanLine in file order, then finishScan ends it. */
export interface Scanning extends LogScan {
  /**
   * Held records, in order: short ones copied; a long message this Deft wrote as its line without its text (all
   * that is read of it: `skeleton`); any other long one as where it sits in the log (read again when it counts).
   */
  held: HeldRecords;
  /** What the held records' copies take (bytes), and may take (HELD_COPY_BUDGET). */
  heldCopied: number;
  heldCopyBudget: number;
  /** Bytes [start, end) of the log, read again (held records), valid until the next call (the buffer may be reused). */
  reread: (start: number, end: number) => Buffer;
  /**
   * Only the events are read (a window's tail, tail-view.ts): what the model reads — messages, named state,
   * compactions, undos, redos — is skipped unparsed, and the timeline stays empty.
   */
  eventsOnly?: boolean;
}

/**
 * `reread`: bytes of the log read again (a held record, when it counts after all); `timeline`: where the
 * messages go (one that leaves large ones in the log file, see logReadBack).
 */
export function startScan(indexFrom: number, reread: Scanning['reread'], timeline = new Timeline(), heldCopyBudget = HELD_COPY_BUDGET): Scanning {
  return {
    header: null,
    lines: [],
    held: new HeldRecords(),
    heldCopied: 0,
    heldCopyBudget,
    reread,
    timeline,
    problems: [],
    trusted: false,
    indexedFrom: indexFrom,
    firstSeq: null,
    earlier: [],
    usage: {},
  };
}

/** How many earlier state events a scan gathers before it compacts them. */
const COMPACT_EARLIER_AT = 4096;

/** compactEarlierState, or the events as they are where they are not shaped as it expects (a scan never throws). */
function compacted(events: SessionEvent[]): SessionEvent[] {
  try {
    return compactEarlierState(events);
  } catch {
    return events;
  }
}

export function finishScan(scan: Scanning): LogScan {
  applyHeld(scan);
  if (scan.earlier.length) scan.earlier = compacted(scan.earlier);
  const { held: _held, heldCopied: _heldCopied, heldCopyBudget: _heldCopyBudget, reread: _reread, ...done } = scan;
  return done;
}

/** One line: bytes [start, end) of `buffer`, which holds the log from file offset `base`. */
export function scanLine(scan: Scanning, buffer: Buffer, start: number, end: number, base: number, lineNo: number, torn: boolean): void {
  if (end - start === 0) return;
  const type = quickType(buffer, start, end);
  if (type !== null && PAGED_EVENT_TYPES.has(type as SessionEventType)) {
    // Before the indexed part, a row-only event needs no more than its type (and the log's first event its seq).
    if (base + start < scan.indexedFrom && scan.firstSeq !== null) return;
    const seq = seqAtEnd(buffer, start + EVENT_PREFIX.length + type.length, end);
    if (seq !== null) {
      scan.firstSeq ??= seq;
      if (base + start >= scan.indexedFrom) scan.lines.push({ seq, start: base + start, end: base + end, type: interned(type) });
      return;
    }
  }
  if (
    scan.eventsOnly &&
    (HELD.some((prefix) => startsWith(buffer, start, end, prefix)) || startsWith(buffer, start, end, STATE) || startsWith(buffer, start, end, COMPACTION))
  )
    return;
  if (HELD.some((prefix) => startsWith(buffer, start, end, prefix)) || (scan.held.length && startsWith(buffer, start, end, STATE))) {
    const state = startsWith(buffer, start, end, STATE);
    scan.held.push(base + start, base + end, lineNo, torn, state, heldBytes(scan, buffer, start, end));
    return;
  }
  if (startsWith(buffer, start, end, SNAPSHOT)) {
    if (parseLine(scan, buffer, start, end, lineNo, torn)) scan.snapshotAt = base + start;
    return;
  }
  const record = parseLine(scan, buffer, start, end, lineNo, torn);
  if (!record) {
    // A compaction that cannot be read does not replace what is held (its list of calls is lost with it).
    if (startsWith(buffer, start, end, COMPACTION)) applyHeld(scan);
    return;
  }
  if (record.r === 'compaction' && isIdList(record.calls) && isCompactionContext(record.context)) replaceHeld(scan, record.calls);
  else if (record.r !== 'event' && record.r !== 'header') applyHeld(scan);
  applyRecord(scan, record, lineNo, base + start, base + end);
}

function startsWith(buffer: Buffer, start: number, end: number, prefix: Buffer): boolean {
  return end - start > prefix.length && buffer.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
}

function parseLine(scan: LogScan, buffer: Buffer, start: number, end: number, lineNo: number, torn: boolean): LogRecord | null {
  const text = buffer.toString('utf8', start, end);
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as LogRecord;
  } catch {
    if (!torn) scan.problems.push(`Line ${lineNo} of the session log is not valid JSON and was skipped.`);
    return null;
  }
}

/** The held records count after all: each is parsed and applied in order. */
function applyHeld(scan: Scanning, onlyState = false): void {
  const held = scan.held;
  if (!held.length) return;
  try {
    applyEach(scan, held, onlyState);
  } finally {
    held.clear();
    scan.heldCopied = 0;
  }
}

/**
 * The held records still waiting when the log ends, applied `slice` at a time (finishScan then applies none): between
 * slices the caller may yield, so that a long log that never compacted — it holds every message to its end — is not
 * one long task. Returns false once all are applied.
 */
export function applyHeldSlice(scan: Scanning, from: number, slice: number): boolean {
  const held = scan.held;
  const to = Math.min(held.length, from + slice);
  try {
    applyEach(scan, held, false, from, to);
  } catch (error) {
    held.clear();
    scan.heldCopied = 0;
    throw error;
  }
  if (to < held.length) return true;
  held.clear();
  scan.heldCopied = 0;
  return false;
}

function applyEach(scan: Scanning, held: HeldRecords, onlyState: boolean, from = 0, to = held.length): void {
  // Records held as where they sit are read again a span at a time (span: bytes of the log from `spanFrom`).
  let span: Buffer | null = null;
  let spanFrom = 0;
  for (let i = from; i < to; i++) {
    if (onlyState && !held.state(i)) continue;
    const start = held.start(i);
    const end = held.end(i);
    const lineNo = held.lineNo(i);
    const torn = held.torn(i);
    const copied = held.bytes(i);
    const textLeftOut = held.skeleton(i);
    // Kept without its text while the log read as this Deft's; should a later header say otherwise, it is read again whole.
    let bytes = textLeftOut && !scan.trusted ? undefined : copied;
    if (!bytes) {
      if (!span || start < spanFrom || end > spanFrom + span.length) {
        spanFrom = start;
        span = scan.reread(start, heldSpanEnd(held, i, onlyState));
      }
      bytes = span.subarray(start - spanFrom, end - spanFrom);
    }
    // A long message left on disk needs only what the timeline's bookkeeping reads: its text is not decoded.
    const skeleton = scan.trusted && scan.timeline.leavesOnDisk(end - start) ? contextSkeleton(bytes) : null;
    const record = skeleton ?? parseLine(scan, bytes, 0, bytes.length, lineNo, torn);
    if (record) applyRecord(scan, record, lineNo, start, end);
  }
}

/** Where a read of the held records again that starts with held[first] ends: at most HELD_SPAN bytes (or that record), no long gap, only what counts. */
function heldSpanEnd(held: HeldRecords, first: number, onlyState: boolean): number {
  const from = held.start(first);
  let end = held.end(first);
  for (let i = first + 1; i < held.length; i++) {
    if (onlyState && !held.state(i)) continue;
    if (held.start(i) - end > HELD_GAP || held.end(i) - from > HELD_SPAN) break;
    end = held.end(i);
  }
  return end;
}

const CONTEXT = Buffer.from('{"r":"context","m":{');
const CONTENT = Buffer.from(',"content":"');

/**
 * A context record as this Deft writes it, with its message's text left out (an empty string): read without
 * decoding the text, which is most of a long message. Null when the line is not laid out so (then it is
 * parsed whole). The text is checked when the message is read back (logReadBack).
 */
export function contextSkeleton(bytes: Buffer): Extract<LogRecord, { r: 'context' }> | null {
  const text = textSpan(bytes, 0, bytes.length);
  if (!text) return null;
  try {
    const record = JSON.parse(bytes.toString('utf8', 0, text.from) + bytes.toString('utf8', text.quote)) as LogRecord;
    return record?.r === 'context' && isMessage(record.m) && record.m.content === '' ? record : null;
  } catch {
    return null;
  }
}

/**
 * Where the text of a context record as this Deft writes it sits in bytes [start, end) of `buffer`: from just
 * after the opening quote of its content to its closing quote. Null when the line is not laid out so.
 */
function textSpan(buffer: Buffer, start: number, end: number): { from: number; quote: number } | null {
  if (!startsWith(buffer, start, end, CONTEXT)) return null;
  const key = buffer.indexOf(CONTENT, start + CONTEXT.length);
  if (key === -1 || key >= end) return null;
  const from = key + CONTENT.length;
  let quote = buffer.indexOf(0x22, from);
  for (; quote !== -1 && quote < end; quote = buffer.indexOf(0x22, quote + 1)) {
    let slashes = 0;
    while (buffer[quote - 1 - slashes] === 0x5c) slashes++;
    if (slashes % 2 === 0) break;
  }
  return quote === -1 || quote >= end ? null : { from, quote };
}

/**
 * What a held record keeps of its line: a short one a copy; a long message of this Deft's log, which the timeline
 * leaves on disk, its line without its text (so it is not read again, see contextSkeleton); anything else nothing.
 */
function heldBytes(scan: Scanning, buffer: Buffer, start: number, end: number): { bytes?: Buffer; skeleton?: boolean } {
  if (scan.heldCopied >= scan.heldCopyBudget) return {};
  if (end - start < HELD_COPY) {
    scan.heldCopied += end - start;
    return { bytes: Buffer.from(buffer.subarray(start, end)) };
  }
  if (!scan.trusted || !scan.timeline.leavesOnDisk(end - start)) return {};
  const text = textSpan(buffer, start, end);
  if (!text) return {};
  scan.heldCopied += text.from - start + end - text.quote;
  return { bytes: Buffer.concat([buffer.subarray(start, text.from), buffer.subarray(text.quote, end)]), skeleton: true };
}

/** A compaction replaces the held records: their tool-call ids are the ones it lists; only their state still counts. */
function replaceHeld(scan: Scanning, calls: readonly string[]): void {
  for (const id of calls) scan.timeline.callIds.add(id);
  applyHeld(scan, true);
}

const TURN_STARTED_LINE = Buffer.from('\n{"r":"event","e":{"type":"turn.started",');

/**
 * Where the last `turns` turns begin in a log as this Deft writes it (0: there are no more turns than that,
 * or they cannot be told apart so). A scan indexes every event from there on and only the events that carry
 * state before it; the rest of the index is built when it is needed.
 */
export function tailOffset(buffer: Buffer, turns: number): number {
  let at = buffer.length;
  let tail = 0;
  for (let found = 0; found <= turns; found++) {
    at = at > 0 ? buffer.lastIndexOf(TURN_STARTED_LINE, at - 1) : -1;
    if (at === -1) return 0;
    if (found === turns - 1) tail = at + 1;
  }
  return tail;
}

/** The seq of an event line as this Deft writes it (read from its end; `after` is where its type ends), or null when it is not laid out so. */
function seqAtEnd(buffer: Buffer, after: number, end: number): number | null {
  const match = SEQ_AT_END.exec(buffer.toString('latin1', Math.max(after, end - 96), end));
  return match ? Number(match[1]) : null;
}

/** The type of an event line as this Deft writes it; null when it is not laid out so. */
function quickType(buffer: Buffer, start: number, end: number): string | null {
  const from = start + EVENT_PREFIX.length;
  if (end - from < 16 || buffer.compare(EVENT_PREFIX, 0, EVENT_PREFIX.length, start, from) !== 0) return null;
  const quote = buffer.indexOf(0x22, from);
  return quote === -1 || quote >= end ? null : buffer.toString('latin1', from, quote);
}

/** Event types, one string each however many lines name them (a long log's index holds tens of thousands of lines). */
const TYPES = new Map<string, string>();

function interned(type: string): string {
  const known = TYPES.get(type);
  if (known !== undefined) return known;
  if (TYPES.size < 256) TYPES.set(type, type);
  return type;
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
      if (!event) {
        problems.push(`Line ${lineNo} of the session log holds an event this version cannot read and was skipped.`);
        break;
      }
      scan.firstSeq ??= event.seq;
      if (event.type === 'usage') Object.assign(scan.usage, event.total);
      const paged = PAGED_EVENT_TYPES.has(event.type);
      if (!paged && start < scan.indexedFrom) {
        scan.lines.push({ seq: event.seq, start, end, type: interned(event.type) });
        scan.earlier.push(event);
        if (scan.earlier.length >= COMPACT_EARLIER_AT) scan.earlier = compacted(scan.earlier);
      } else if (!paged || start >= scan.indexedFrom) scan.lines.push({ seq: event.seq, start, end, type: interned(event.type), ...(paged ? {} : { event }) });
      break;
    }
    case 'context':
      if (isMessage(record.m)) timeline.append(record.m, start >= 0 ? { start, end } : undefined);
      else problems.push(`Line ${lineNo} of the session log holds a malformed message and was skipped.`);
      break;
    case 'state':
      timeline.set(record.key, record.value);
      break;
    case 'compaction':
      if (isCompactionContext(record.context)) timeline.compact(record.context);
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
 * The protocol's event schema, for a log this Deft did not write. Loaded only then: building zod's event
 * schemas is a good part of a cold start, and a run that reads only its own logs never needs them.
 */
let strictCheck: ((value: unknown) => SessionEvent | null) | null = null;

export async function loadStrictEventCheck(): Promise<void> {
  if (strictCheck) return;
  const { sessionEventSchema } = await import('#protocol/schemas/events');
  const schema = sessionEventSchema();
  strictCheck = (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? parsed.data : null;
  };
}

/** The first bytes of a log this Deft wrote: its header, which a scan trusts. */
const OWN_HEADER = Buffer.from(`{"r":"header","version":${LOG_VERSION},`);

/** Whether a log starting with `head` may hold events that need the strict check (`loadStrictEventCheck`). */
export function needsStrictCheck(head: Buffer): boolean {
  return head.length > 0 && !head.subarray(0, OWN_HEADER.length).equals(OWN_HEADER);
}

/**
 * An event read back from a log. What this Deft wrote (`trusted`) gets a cheap shape check only; from any
 * other log it must parse against the protocol. Where the strict check was not loaded (a later header of
 * another version in a log that began as this Deft's), the event is not read: failing closed.
 */
export function checkEvent(value: unknown, trusted: boolean): SessionEvent | null {
  if (trusted) {
    const e = value as { type?: unknown; seq?: unknown } | null;
    return e && typeof e === 'object' && typeof e.type === 'string' && Number.isInteger(e.seq) ? (value as SessionEvent) : null;
  }
  return strictCheck ? strictCheck(value) : null;
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

function isIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string');
}

function isCompactionContext(context: unknown): context is ModelMessage[] {
  return Array.isArray(context) && context.every(isMessage);
}

export function isMessage(m: unknown): m is ModelMessage {
  return Boolean(m) && typeof m === 'object' && 'role' in (m as object);
}
