import type { SessionEvent } from '#protocol';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { PAGED_EVENT_TYPES, TAIL_TURNS } from '#protocol/helpers/paging';
import { SNAPSHOT, finishScan, needsStrictCheck, readEventLine, scanLine, startScan } from './log-scan';
import { tailOffsetOfFile } from './log-scan-file';
import { fileLength, readLogSpan } from './log-read';
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
export async function readTailView(path: string): Promise<TailView | null> {
  const size = await fileLength(path);
  const tail = await tailOffsetOfFile(path, TAIL_TURNS);
  if (tail === 0 || needsStrictCheck(await readLogSpan(path, 0, 64))) return null;
  // A snapshot is written at least every SNAPSHOT_EVERY_TURNS turns: one further back is not looked for.
  const reach = await tailOffsetOfFile(path, TAIL_TURNS + 2 * SNAPSHOT_EVERY_TURNS);
  // From the line feed before the first turn looked at (the whole log when it has no more turns than that).
  const base = Math.max(reach - 1, 0);
  const buffer = await readLogSpan(path, base, size);
  const at = buffer.lastIndexOf(SNAPSHOT_LINE);
  if (at === -1) return null;
  const lineEnd = buffer.indexOf(0x0a, at + 1);
  if (lineEnd === -1) return null;
  let snapshot: Extract<LogRecord, { r: 'snapshot' }>;
  try {
    snapshot = JSON.parse(buffer.toString('utf8', at + 1, lineEnd)) as typeof snapshot;
  } catch {
    return null;
  }
  const { tailFrom, tailSeq, firstSeq, earlier, problems } = snapshot;
  if (!Number.isInteger(tailFrom) || tailFrom < reach || tailFrom > tail || !Array.isArray(earlier) || !Array.isArray(problems)) return null;
  // The snapshot's tail must still start where it says: a turn's first line, with its seq.
  const from = tailFrom - base;
  if (buffer[from - 1] !== 0x0a || buffer.compare(TURN_STARTED, 0, TURN_STARTED.length, from, from + TURN_STARTED.length) !== 0) return null;
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
