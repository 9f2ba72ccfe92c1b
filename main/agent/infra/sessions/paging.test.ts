import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAGED_EVENT_TYPES, PAGE_TURNS, type SessionEvent, TAIL_TURNS, compactEarlierState, sessionEventSchema } from '#protocol';
import { tempDir } from '#test-support/harness';
import { parseLog } from './log';
import { LOG_FILE, Session, type SessionMeta } from './session';

let dir: string;
let clock = 1_700_000_000_000;
const now = () => ++clock;
const meta: SessionMeta = { id: 's1', title: 't', workspace: '/ws', createdAt: 0, updatedAt: 0, turns: 0 };

beforeEach(async () => {
  dir = await tempDir('deft-paging-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One turn as the runtime emits it: prompt, a mode change, a Read call, a streamed answer in several deltas. */
function turn(session: Session, n: number, options: { end?: boolean } = {}): void {
  const turnId = `turn-${n}`;
  session.emit({ type: 'turn.started', turnId, text: `Question ${n}`, attachments: [], origin: 'user' });
  session.emit({ type: 'step.started', turnId, step: 1 });
  session.emit({
    type: 'tool.call.started',
    turnId,
    step: 1,
    callId: `c${n}`,
    name: 'Read',
    args: { path: `f${n}.ts` },
    description: 'Read',
    display: { kind: 'file_io', operation: 'read', path: `f${n}.ts` },
  });
  session.emit({ type: 'tool.call.result', turnId, callId: `c${n}`, name: 'Read', isError: false, output: `line ${n} ✓ ünïcode\n`.repeat(20), durationMs: 1 });
  if (n % 7 === 0) session.emit({ type: 'todo.updated', items: [{ title: `todo ${n}`, status: 'pending' }] });
  for (const word of ['Part ', `${n} `, 'is ', 'done.']) session.emit({ type: 'assistant.delta', turnId, step: 1, text: word });
  session.emit({ type: 'step.ended', turnId, step: 1, finishReason: 'end_turn' });
  session.emit({ type: 'usage', turnId, step: { inputTokens: 10, outputTokens: 2 }, total: { inputTokens: 10 * n, outputTokens: 2 * n } });
  if (options.end !== false) session.emit({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 5 });
}

async function sessionOf(turns: number): Promise<Session> {
  const session = await Session.create(dir, meta, now);
  for (let n = 1; n <= turns; n++) {
    turn(session, n);
    await session.flush();
  }
  return session;
}

/** Page back from the tail to the first event, the way a window scrolls up. */
async function pageBack(session: Session, before: number | null): Promise<SessionEvent[][]> {
  const pages: SessionEvent[][] = [];
  let cursor = before;
  while (cursor !== null) {
    const page = await session.eventsBefore(cursor, PAGE_TURNS);
    expect(page.events.length).toBeGreaterThan(0);
    expect(page.events[page.events.length - 1]!.seq).toBeLessThan(cursor);
    pages.unshift(page.events);
    cursor = page.before;
  }
  return pages;
}

const seqs = (events: readonly SessionEvent[]) => events.map((e) => e.seq);
const onDisk = async () => (await parseLog(await readFile(join(dir, LOG_FILE)))).events;

describe('a session opens at its tail and pages back', () => {
  it('gives the last turns first, then every earlier event once and in order, page by page', async () => {
    await sessionOf(50);
    const { session, problems } = await Session.load(dir, meta, now);
    expect(problems).toEqual([]);
    const all = await onDisk();
    const tail = session.tail();
    expect(tail.events.filter((e) => e.type === 'turn.started')).toHaveLength(TAIL_TURNS);
    expect(tail.events[0]!.type).toBe('turn.started');
    expect(tail.before).toBe(tail.events[0]!.seq);
    // What carries state before the tail comes with it, compacted; the conversation's own events do not.
    const beforeTail = all.filter((e) => e.seq < tail.before!);
    expect(tail.earlier).toEqual(compactEarlierState(beforeTail.filter((e) => !PAGED_EVENT_TYPES.has(e.type))));
    // The last todo list and one usage event with the 38 turns' tokens summed: nothing per turn.
    expect(tail.earlier.map((e) => e.type)).toEqual(['todo.updated', 'usage']);
    expect(tail.earlier[0]).toMatchObject({ items: [{ title: 'todo 35' }] });
    expect(tail.earlier[1]).toMatchObject({ step: { inputTokens: 380, outputTokens: 76 }, total: { inputTokens: 380, outputTokens: 76 } });
    for (const event of tail.earlier) expect(sessionEventSchema().safeParse(event).success).toBe(true);
    const pages = await pageBack(session, tail.before);
    expect(pages.length).toBe(Math.ceil((50 - TAIL_TURNS) / PAGE_TURNS));
    expect([...pages.flat(), ...tail.events]).toEqual(all);
    // Only the tail is in memory; the whole session (a sub-agent's card) is read back when asked for.
    expect(session.events.length).toBe(tail.events.length);
    expect(await session.allEvents()).toEqual(all);
  });

  it('pages back correctly while a turn streams, from events this session wrote since it opened', async () => {
    const session = await sessionOf(3 * TAIL_TURNS + 5);
    // Long-running: the turns before the tail have left memory, and are read back through offsets the writer noted.
    const written = await onDisk();
    expect(session.events.length).toBeLessThan(written.length);
    turn(session, 100, { end: false });
    session.emit({ type: 'assistant.delta', turnId: 'turn-100', step: 2, text: 'still streaming' });
    const opened = session.eventsAfter(undefined);
    expect(opened.reset).toBe(true);
    if (!opened.reset) return;
    expect(opened.events[opened.events.length - 1]).toMatchObject({ type: 'assistant.delta', text: 'still streaming' });
    // The turns that left memory kept their state compacted as they went: the same as compacting them at once.
    const stateBefore = written.filter((e) => e.seq < opened.before! && !PAGED_EVENT_TYPES.has(e.type));
    expect(opened.earlier).toEqual(compactEarlierState(stateBefore));
    expect(opened.earlier.length).toBeLessThanOrEqual(2);
    const pages = await pageBack(session, opened.before);
    expect([...pages.flat(), ...opened.events.filter((e) => e.seq <= written[written.length - 1]!.seq)]).toEqual(written);
    // A window that saw the tail catches up from its last seq without a reset.
    const after = session.eventsAfter(opened.events[opened.events.length - 2]!.seq);
    expect(after).toEqual({ events: [opened.events[opened.events.length - 1]], reset: false });
    // One that last saw an event no longer in memory starts again from the tail.
    expect(session.eventsAfter(3).reset).toBe(true);
  });

  it('a loaded session indexes the events before its tail only when a page asks for them, also after new turns', async () => {
    await sessionOf(40);
    const { session } = await Session.load(dir, meta, now);
    for (let n = 41; n <= 43; n++) {
      turn(session, n);
      await session.flush();
    }
    const opened = session.tail();
    const pages = await pageBack(session, opened.before);
    expect([...pages.flat(), ...opened.events]).toEqual(await onDisk());
  });

  it('a turn of the tail that cannot be read: the whole log is indexed at once and every readable event still pages back', async () => {
    await sessionOf(40);
    const path = join(dir, LOG_FILE);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const started = lines.flatMap((line, i) => (line.startsWith('{"r":"event","e":{"type":"turn.started",') ? [i] : []));
    // The prompt line of the fifth-last turn loses its end: it still looks like a turn's start, but is not one.
    const broken = started[started.length - 5]!;
    lines[broken] = lines[broken]!.slice(0, 60);
    await writeFile(path, lines.join('\n'));
    const { session, problems } = await Session.load(dir, meta, now);
    expect(problems).toHaveLength(1);
    const tail = session.tail();
    expect(tail.events.filter((e) => e.type === 'turn.started')).toHaveLength(TAIL_TURNS);
    const pages = await pageBack(session, tail.before);
    expect([...pages.flat(), ...tail.events]).toEqual(await onDisk());
  });

  it('a short session is all tail', async () => {
    await sessionOf(3);
    const { session } = await Session.load(dir, meta, now);
    const tail = session.tail();
    expect(tail.before).toBeNull();
    expect(tail.earlier).toEqual([]);
    expect(seqs(tail.events)).toEqual(seqs(await onDisk()));
  });

  it('reads the log again when it changed under the index', async () => {
    await sessionOf(40);
    const { session } = await Session.load(dir, meta, now);
    const path = join(dir, LOG_FILE);
    // Another writer put a line in front: every offset moved.
    await writeFile(path, `${JSON.stringify({ r: 'state', key: 'x', value: 1 })}\n${await readFile(path, 'utf8')}`);
    const pages = await pageBack(session, session.tail().before);
    const tail = session.tail().events;
    expect([...pages.flat(), ...tail]).toEqual(await onDisk());
  });
});

describe('trust: what this Deft wrote is not validated again, other logs are', () => {
  const header = (version: number) => JSON.stringify({ r: 'header', version, sessionId: 's1', workspace: '/ws', createdAt: 0 });
  // A tool result whose isError is not a boolean: not a protocol event.
  const bad = (seq: number) =>
    JSON.stringify({
      r: 'event',
      e: { type: 'tool.call.result', turnId: 't', callId: 'c', name: 'Read', isError: 'no', output: 'x', durationMs: 1, sessionId: 's1', seq, at: 1 },
    });
  const good = (seq: number) => JSON.stringify({ r: 'event', e: { type: 'todo.updated', items: [], sessionId: 's1', seq, at: 1 } });
  const badState = (seq: number) => JSON.stringify({ r: 'event', e: { type: 'usage', turnId: 't', step: 'lots', total: {}, sessionId: 's1', seq, at: 1 } });

  it('an older log is validated event by event: what does not parse is skipped and reported', async () => {
    await writeFile(join(dir, LOG_FILE), [header(1), good(1), bad(2), badState(3)].join('\n') + '\n');
    const { session, problems } = await Session.load(dir, meta, now);
    expect(seqs(session.events)).toEqual([1]);
    expect(problems).toHaveLength(2);
  });

  it('a log of this version is trusted', async () => {
    await writeFile(join(dir, LOG_FILE), [header(2), good(1), bad(2)].join('\n') + '\n');
    const { session, problems } = await Session.load(dir, meta, now);
    expect(problems).toEqual([]);
    expect(seqs(session.events)).toEqual([1, 2]);
  });
});
