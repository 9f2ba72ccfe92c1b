import type { SessionEvent } from '#protocol';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { PAGED_EVENT_TYPES, TAIL_TURNS } from '#protocol/helpers/paging';
import { SNAPSHOT, finishScan, needsStrictCheck, readEventLine, scanLine, startScan, tailOffset } from './log-scan';
import { fileLength, readLogLines, readLogSpan } from './log-read';
import { scanLogFile, tailOffsetOfFile } from './log-scan-file';
import type { LogRecord } from './records';
import { unfinishedCompactions, unfinishedTurn, waitingPrompts } from './repair';
import { SNAPSHOT_EVERY_TURNS } from './session';

/** What a window opening a session gets (Session.tail), and the unreadable lines to show it. */
export interface TailView {
  events: SessionEvent[];
  before: number | null;
  earlier: SessionEvent[];
  problems: string[];
}

const SNAPSHOT_LINE = Buffer.concat([Buffer.from('\n'), SNAPSHOT]);
const TURN_STARTED = Buffer.from('{"r":"event","e":{"type":"turn.started",');

/**
 * A window's first open of a long session without reading its log from the start: the log's newest snapshot
 * (a record Session writes every SNAPSHOT_EVERY_TURNS turns and when it is let go of) gives what the window needs
 * of the log before the snapshot's tail, and only the log from there on is read. The result is what
 * `Session.load(…).session.tail()` gives, or null where it might not be — no snapshot within reach, a log of
 * another version, a line that does not read, a turn or compaction cut short, a message still queued — and the
 * session is then opened the usual way. The session itself (the model's context, earlier pages) is loaded as
 * before; this only lets a window show the tail first.
 */
export async function readTailView(path: string, firstSpan?: number): Promise<TailView | null> {
  if (needsStrictCheck(await readLogSpan(path, 0, 64))) return null;
  const found = await newestSnapshot(path, firstSpan);
  if (found === 'none') return readTailViewByScan(path);
  if (!found) return null;
  const { snapshot, at } = found;
  const { tailFrom, tailSeq, firstSeq, earlier, problems } = snapshot;
  if (!Number.isInteger(tailFrom) || tailFrom < 1 || tailFrom > at || !Array.isArray(earlier) || !Array.isArray(problems)) return null;
  // The log from the line feed before the snapshot's tail: that tail must still start there, with its seq.
  const base = tailFrom - 1;
  const buffer = found.from <= base ? found.buffer.subarray(base - found.from) : await readLogSpan(path, base, found.from + found.buffer.length);
  if (buffer[0] !== 0x0a || buffer.compare(TURN_STARTED, 0, TURN_STARTED.length, 1, 1 + TURN_STARTED.length) !== 0) return null;
  // The tail now: the last TAIL_TURNS turns (those since the snapshot's tail when there are no more).
  const tail = base + (tailOffset(buffer, TAIL_TURNS) || 1);
  const from = 1;
  const scan = startScan(tail, (start, end) => buffer.subarray(start - base, end - base));
  scan.trusted = true;
  const endsClean = buffer[buffer.length - 1] === 0x0a;
  for (let start = from; start < buffer.length; ) {
    const feed = buffer.indexOf(0x0a, start);
    const end = feed === -1 ? buffer.length : feed;
    scanLine(scan, buffer, start, end, base, 0, (feed === -1 || feed === buffer.length - 1) && !endsClean);
    start = end + 1;
  }
  const done = finishScan(scan);
  const first = done.lines[0];
  if (done.problems.length || done.header || !first || first.seq !== tailSeq || first.type !== 'turn.started') return null;
  const events: SessionEvent[] = [];
  for (const line of done.lines) {
    if (line.start < tail) continue;
    const event = readEventLine(buffer, base, line, true);
    if (!event) return null;
    events.push(event);
  }
  if (events[0]?.type !== 'turn.started') return null;
  const stateBefore = compactEarlierState([...earlier, ...done.earlier]);
  const state = [...stateBefore, ...events.filter((e) => !PAGED_EVENT_TYPES.has(e.type))];
  // What Session.load would repair or hand to the prompt queue: left to it.
  if (unfinishedTurn(state) || unfinishedCompactions(state).length || waitingPrompts(state).length) return null;
  const head = events[0].seq;
  return { events, before: firstSeq !== null && firstSeq < head ? head : null, earlier: stateBefore, problems };
}

/**
 * The log's newest snapshot, read back from its end (`firstSpan` bytes first, four times more each time after): the bytes from where the search began (`from`) to the end, and
 * where the snapshot's line starts. 'none' when there is none within the last TAIL_TURNS + 2 × SNAPSHOT_EVERY_TURNS turns
 * (null: its line does not read).
 */
async function newestSnapshot(
  path: string,
  firstSpan = 1 << 20,
): Promise<{ snapshot: Extract<LogRecord, { r: 'snapshot' }>; at: number; buffer: Buffer; from: number } | 'none' | null> {
  const size = await fileLength(path);
  for (let span = Math.min(size, firstSpan); span > 0; span = Math.min(size, span * 4)) {
    const from = size - span;
    const buffer = await readLogSpan(path, from, size);
    const line = buffer.lastIndexOf(SNAPSHOT_LINE);
    const end = line === -1 ? -1 : buffer.indexOf(0x0a, line + 1);
    if (end !== -1) {
      try {
        return { snapshot: JSON.parse(buffer.toString('utf8', line + 1, end)) as Extract<LogRecord, { r: 'snapshot' }>, at: from + line + 1, buffer, from };
      } catch {
        return null;
      }
    }
    // Looked back far enough (a snapshot is written at least every SNAPSHOT_EVERY_TURNS turns), or the whole log.
    if (span === size || tailOffset(buffer, TAIL_TURNS + 2 * SNAPSHOT_EVERY_TURNS) > 1) return 'none';
  }
  return 'none';
}

/**
 * The tail view of a log with no snapshot within reach (one from before snapshots, or not let go of since): the
 * log read once from its start in chunks, its events only (scanLogFile's `eventsOnly`: the messages, state,
 * compactions, undos and redos that only shape what the model reads are skipped unparsed, and only the events
 * that carry state are parsed before the tail), so a window is shown the tail without the session being built.
 * The result is what `Session.load(…).session.tail()` gives, or null where it might not be (as readTailView),
 * except that `problems` only names the unreadable event lines: a damaged message, compaction, undo or redo is
 * reported once the session is loaded, as a line damaged before a snapshot's tail is.
 */
async function readTailViewByScan(path: string): Promise<TailView | null> {
  const scan = await scanLogFile(path, { indexFrom: await tailOffsetOfFile(path, TAIL_TURNS), eventsOnly: true });
  if (!scan.trusted || !scan.header) return null;
  const turnStarts = scan.lines.filter((line) => line.type === 'turn.started').map((line) => line.seq);
  const tailSeq = turnStarts.length > TAIL_TURNS ? turnStarts[turnStarts.length - TAIL_TURNS]! : 0;
  const tailAt = scan.lines.findIndex((line) => line.seq >= tailSeq);
  const tailLines = tailAt === -1 ? [] : scan.lines.slice(tailAt);
  // The tail must be indexed in full (Session.load indexes the whole log where it is not laid out as expected).
  if (scan.indexedFrom > 0 && !((tailLines[0]?.start ?? -1) >= scan.indexedFrom)) return null;
  const stateEvents = [...scan.earlier];
  const earlier = [...scan.earlier];
  for (const line of scan.lines) if (line.event) stateEvents.push(line.event);
  for (const line of scan.lines.slice(0, tailAt === -1 ? scan.lines.length : tailAt))
    if (line.event && !PAGED_EVENT_TYPES.has(line.event.type)) earlier.push(line.event);
  if (unfinishedTurn(stateEvents) || unfinishedCompactions(stateEvents).length || waitingPrompts(stateEvents).length) return null;
  const read = await readLogLines(path, tailLines, true);
  const events: SessionEvent[] = [];
  for (const event of read) {
    if (!event) return null;
    events.push(event);
  }
  const firstSeq = Math.min(scan.firstSeq ?? Infinity, scan.lines[0]?.seq ?? Infinity, events[0]?.seq ?? Infinity);
  const head = events[0]?.seq;
  return {
    events,
    before: head !== undefined && firstSeq < head ? head : null,
    earlier: compactEarlierState(compactEarlierState(earlier)),
    problems: scan.problems,
  };
}
