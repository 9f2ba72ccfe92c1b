import { describe, expect, it, vi } from 'vitest';
import type { ModelMessage } from '#contract/model';
import type { SessionEvent } from '#protocol';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { PAGED_EVENT_TYPES } from '#protocol/helpers/paging';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir } from '#test-support/harness';
import { contextSkeleton, finishScan, scanLine, scanLog, startScan, tailOffset } from './log-scan';
import { logReadBack } from './log-messages';
import { scanLogFile, tailOffsetOfFile } from './log-scan-file';
import { LOG_FILE, Session } from './session';
import { LOG_VERSION, type LogRecord } from './records';
import { Timeline } from './timeline';

/** A small deterministic generator, so a failing case can be run again. */
function random(seed: number): () => number {
  // Mixed, so that the first draws of neighbouring seeds are not close together.
  let s = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The lines a scan may leave unread, worked out the long way: the messages, undos and redos since the
 * compaction before a compaction that parses and lists its calls.
 */
function unreadLines(lines: string[]): Set<number> {
  const unread = new Set<number>();
  let since: number[] = [];
  lines.forEach((line, i) => {
    if (['{"r":"context",', '{"r":"undo",', '{"r":"redo",'].some((kind) => line.startsWith(kind))) since.push(i);
    if (!line.startsWith('{"r":"compaction",')) return;
    const record = parsedOrNull(line);
    if (Array.isArray(record?.calls) && Array.isArray(record?.context)) for (const j of since) unread.add(j);
    since = [];
  });
  return unread;
}

function parsedOrNull(line: string): { calls?: unknown; context?: unknown } | null {
  try {
    return JSON.parse(line) as { calls?: unknown; context?: unknown };
  } catch {
    return null;
  }
}

/** Every line parsed and applied in order: what a scan must end with (problems only of the lines it reads). */
function referenceTimeline(lines: string[]): { timeline: Timeline; problems: number } {
  const timeline = new Timeline();
  const unread = unreadLines(lines);
  let problems = 0;
  lines.forEach((line, i) => {
    const problem = () => {
      if (!unread.has(i)) problems++;
    };
    let record: LogRecord;
    try {
      record = JSON.parse(line) as LogRecord;
    } catch {
      problem();
      return;
    }
    if (record.r === 'context') timeline.append(record.m);
    else if (record.r === 'state') timeline.set(record.key, record.value);
    else if (record.r === 'compaction') {
      if (Array.isArray(record.context)) timeline.compact(record.context);
      else problem();
    } else if (record.r === 'undo') {
      if (!timeline.undo(record.turnIds)) problem();
    } else if (record.r === 'redo' && !timeline.redo(record.turnIds)) problem();
  });
  return { timeline, problems };
}

/**
 * A log of prompts, answers with tool calls, state, compactions, undos, redos, events and broken lines. With
 * `large`, every fourth message is long and each tool call gets a long result (messages a timeline read from
 * a file leaves there).
 */
function randomLog(seed: number, large = false): string[] {
  const next = random(seed);
  const lines = [JSON.stringify({ r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 })];
  const turns: string[] = [];
  let seq = 0;
  let undone: string[] = [];
  let calls: string[] = [];
  // Some logs were written before compactions listed their calls; some switch part way (an update).
  const era = next();
  const listsFrom = era < 0.2 ? Infinity : era < 0.6 ? 0 : Math.floor(next() * 80);
  for (let i = 0; i < 120; i++) {
    const roll = next();
    const push = (record: LogRecord) => lines.push(JSON.stringify(record));
    if (roll < 0.3) {
      const turnId = `t${i}`;
      turns.push(turnId);
      undone = [];
      push({ r: 'context', m: { role: 'user', content: `prompt ${i}${pad(large && i % 4 === 0)}`, turnId } as ModelMessage });
      push({ r: 'event', e: { type: 'turn.started', turnId, sessionId: 's', seq: ++seq, at: seq } as never });
    } else if (roll < 0.5) {
      const toolCalls = next() < 0.5 ? [{ id: `call-${i}`, name: 'Read', arguments: '{}' }] : [];
      calls.push(...toolCalls.map((call) => call.id));
      push({
        r: 'context',
        m: { role: 'assistant', content: `answer ${i}${pad(large && i % 4 === 1)}`, ...(toolCalls.length ? { toolCalls } : {}) } as ModelMessage,
      });
      for (const call of large ? toolCalls : [])
        push({ r: 'context', m: { role: 'tool', toolCallId: call.id, toolName: 'Read', content: `result ${i}${pad(true)}` } });
      push({ r: 'event', e: { type: 'assistant.delta', turnId: 't', step: 1, text: 'x', sessionId: 's', seq: ++seq, at: seq + 0.5 } as never });
    } else if (roll < 0.62) push({ r: 'state', key: `k${Math.floor(next() * 3)}`, value: i });
    else if (roll < 0.7) {
      push({ r: 'compaction', id: `c${i}`, ...(i >= listsFrom ? { calls } : {}), context: [{ role: 'user', content: `summary ${i}` }] });
      calls = [];
      turns.length = 0;
      undone = [];
    } else if (roll < 0.78 && turns.length) {
      undone = turns.splice(-1);
      push({ r: 'undo', turnIds: undone });
    } else if (roll < 0.84 && undone.length) {
      push({ r: 'redo', turnIds: undone });
      turns.push(...undone);
      undone = [];
    } else if (roll < 0.88) push({ r: 'undo', turnIds: ['no-such-turn'] });
    else if (roll < 0.91)
      lines.push('{"r":"state","key":'); // broken JSON
    else if (roll < 0.92)
      lines.push('{"r":"compaction","id":"torn","calls":["call-x"'); // a compaction that cannot be read
    else if (roll < 0.95) push({ r: 'compaction', id: 'bad', ...(next() < 0.7 ? { calls: [] } : {}), context: 'not a list' as never });
    else if (roll < 0.97) push({ r: 'event', e: { type: 'usage', turnId: 't', sessionId: 's', seq: ++seq, at: seq } as never });
    // A snapshot (tail-view.ts) only shortens a window's first open: a scan reads past it.
    else push({ r: 'snapshot', tailFrom: 0, tailSeq: seq, firstSeq: 1, earlier: [], problems: [] });
  }
  return lines;
}

/** What a timeline holds, to compare two. */
const view = (t: Timeline) => ({
  context: t.context,
  state: [...t.state],
  marks: t.marks.map((m) => ({ ...m, state: [...m.state] })),
  callIds: [...t.callIds].sort(),
  calls: [...t.callsSinceCompaction].sort(),
  compacted: t.compactions > 0,
});

/** Enough text to make a message long (✓: not Latin-1, as command output often is not). */
const pad = (long: boolean) => (long ? ' ✓ ok'.repeat(300) : '');

/** The scan a session makes of `buffer` (the log at `path`), line by line, counting the reads of the file it makes again. */
function scanCountingRereads(buffer: Buffer, path: string): ReturnType<typeof finishScan> & { rereads: number } {
  let rereads = 0;
  const scan = startScan(
    0,
    (start, end) => {
      rereads++;
      return buffer.subarray(start, end);
    },
    new Timeline(logReadBack(path)),
  );
  let lineNo = 0;
  for (let start = 0; start < buffer.length; ) {
    const end = buffer.indexOf(0x0a, start);
    scanLine(scan, buffer, start, end, 0, ++lineNo, false);
    start = end + 1;
  }
  return { ...finishScan(scan), rereads };
}

describe('scanLog', () => {
  it('ends with the same timeline as applying every line in order, over 300 random logs', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const lines = randomLog(seed);
      const scan = scanLog(Buffer.from(lines.join('\n') + '\n'));
      const reference = referenceTimeline(lines);
      expect(view(scan.timeline), `seed ${seed}`).toEqual(view(reference.timeline));
      expect(scan.problems.length, `seed ${seed}`).toBe(reference.problems);
      // A redo right after the scan works exactly when it would have after the reference replay.
      const last = [...lines].reverse().find((l) => l.startsWith('{"r":"undo"'));
      if (last) {
        const { turnIds } = JSON.parse(last) as { turnIds: string[] };
        expect(scan.timeline.canRedo(turnIds), `seed ${seed}`).toBe(reference.timeline.canRedo(turnIds));
      }
    }
  });

  it('reports a malformed message after the last compaction, and keeps the tool-call ids of the messages a compaction replaced', () => {
    const lines = [
      JSON.stringify({ r: 'context', m: { role: 'assistant', content: '', toolCalls: [{ id: 'early-call', name: 'Read', arguments: '{}' }] } }),
      JSON.stringify({ r: 'compaction', id: 'c', context: [{ role: 'user', content: 'summary' }] }),
      '{"r":"context","m":{"role":',
      JSON.stringify({ r: 'context', m: { role: 'user', content: 'next' } }),
    ];
    const scan = scanLog(Buffer.from(lines.join('\n') + '\n'));
    expect(scan.problems).toEqual(['Line 3 of the session log is not valid JSON and was skipped.']);
    expect([...scan.timeline.callIds]).toEqual(['early-call']);
    expect(scan.timeline.context.map((m) => m.content)).toEqual(['summary', 'next']);
  });
});

describe('scanLogFile', () => {
  it('reads a log in chunks to the same scan as the whole buffer: lines across chunk ends, a torn last line, a stop at a line', async () => {
    const dir = await tempDir('deft-scan-file-');
    const path = join(dir, 'log.jsonl');
    for (let seed = 1; seed <= 60; seed++) {
      const lines = randomLog(seed);
      const text = lines.join('\n') + (seed % 3 === 0 ? '\n{"r":"context","m":{"ro' : '\n');
      await writeFile(path, text);
      const buffer = Buffer.from(text);
      const indexFrom = tailOffset(buffer, 3);
      const whole = scanLog(buffer, indexFrom);
      for (const chunk of [7, 64, 1000]) {
        const { size, ...scan } = await scanLogFile(path, { indexFrom, chunk });
        expect(size).toBe(buffer.length);
        expect(scan, `seed ${seed}, chunk ${chunk}`).toEqual(whole);
      }
      // Held records copied up to a budget, the rest read again from the file a span at a time: the same scan.
      for (const heldCopyBudget of [0, 300]) {
        const { size: _bytes, ...scan } = await scanLogFile(path, { indexFrom, chunk: 64, heldCopyBudget });
        expect(scan, `seed ${seed}, budget ${heldCopyBudget}`).toEqual(whole);
      }
      const until = buffer.indexOf('\n', Math.floor(buffer.length / 2)) + 1;
      const { size: _size, ...upTo } = await scanLogFile(path, { until, chunk: 64 });
      expect(upTo, `seed ${seed}`).toEqual(scanLog(buffer.subarray(0, until)));
      expect(await tailOffsetOfFile(path, 3, 100)).toBe(indexFrom);
      expect(await tailOffsetOfFile(path, 3)).toBe(indexFrom);
    }
  });

  it('a missing log scans as empty', async () => {
    const scan = await scanLogFile(join(await tempDir('deft-scan-file-'), 'none.jsonl'));
    expect(scan).toMatchObject({ size: 0, lines: [], problems: [], header: null });
  });
});

describe('a session compacting', () => {
  it('lists the tool calls a compaction replaces, so that a reload does not read the messages before it', async () => {
    const dir = await tempDir('deft-compacting-');
    const meta = { id: 's1', title: 't', workspace: '/ws', createdAt: 0, updatedAt: 0, turns: 0 };
    const session = await Session.create(dir, meta, () => 1);
    const call = (id: string): ModelMessage => ({ role: 'assistant', content: '', toolCalls: [{ id, name: 'Read', arguments: '{}' }] });
    session.appendContext({ role: 'user', content: 'one', turnId: 't1' });
    session.appendContext(call('c1'));
    session.compactContext('k1', [{ role: 'user', content: 'summary 1' }]);
    session.appendContext(call('c2'));
    session.appendContext(call('c3'));
    session.compactContext('k2', [{ role: 'user', content: 'summary 2' }]);
    session.appendContext(call('c4'));
    await session.flush();
    const path = join(dir, LOG_FILE);
    const records = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as LogRecord);
    expect(records.filter((r) => r.r === 'compaction').map((r) => (r.r === 'compaction' ? r.calls : null))).toEqual([['c1'], ['c2', 'c3']]);
    // A message the second compaction replaced, broken: a reload never reads it, so it is not reported.
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.splice(
      lines.findIndex((l) => l.includes('"c3"')),
      0,
      '{"r":"context","m":{"role":',
    );
    await writeFile(path, lines.join('\n'));
    const { session: again, problems } = await Session.load(dir, meta, () => 2);
    expect(problems).toEqual([]);
    expect([...again.callIds].sort()).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(again.context.slice(0, 2).map((m) => m.content)).toEqual(['summary 2', '']);
  });
});

describe('a timeline read from a log file leaves its large messages there', () => {
  it('holds only where they sit, and reads them back to the same timeline (blocking or not), undone ones and redos too', async () => {
    const dir = await tempDir('deft-scan-messages-');
    const path = join(dir, 'log.jsonl');
    let leftAny = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const lines = randomLog(seed, true);
      await writeFile(path, lines.join('\n') + '\n');
      const eager = scanLog(Buffer.from(lines.join('\n') + '\n')).timeline;
      for (const blocking of [true, false]) {
        const { timeline, problems } = await scanLogFile(path, { leaveMessages: true, chunk: 4096 });
        expect(problems.length, `seed ${seed}`).toBe(scanLog(Buffer.from(lines.join('\n') + '\n')).problems.length);
        const held = timeline.onDisk;
        leftAny += held;
        // Every long message is left on disk, none of the short ones.
        const long = eager.context.filter((m) => JSON.stringify({ r: 'context', m }).length >= 1024).length;
        if (!eager.compactions) expect(held, `seed ${seed}`).toBeGreaterThanOrEqual(long);
        expect(timeline.length).toBe(eager.context.length);
        if (!blocking) await timeline.loadContext();
        expect(view(timeline), `seed ${seed}`).toEqual(view(eager));
        expect(timeline.onDisk).toBe(0);
      }
      // A redo puts back messages an undo took while they were still on disk.
      const undo = [...lines].reverse().find((l) => l.startsWith('{"r":"undo"'));
      const lazy = (await scanLogFile(path, { leaveMessages: true })).timeline;
      const turnIds = undo ? (JSON.parse(undo) as { turnIds: string[] }).turnIds : [];
      if (undo && eager.canRedo(turnIds)) {
        expect(lazy.redo(turnIds)).not.toBeNull();
        eager.redo(turnIds);
        expect(view(lazy), `seed ${seed}`).toEqual(view(eager));
      }
    }
    expect(leftAny).toBeGreaterThan(100);
  });

  it('a message whose line changed under the session reads back as unreadable, its tool call still paired', async () => {
    const dir = await tempDir('deft-scan-messages-');
    const path = join(dir, 'log.jsonl');
    const call = { id: 'call-1', name: 'Bash', arguments: '{"command":"npm test"}' };
    const records: LogRecord[] = [
      { r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 },
      { r: 'context', m: { role: 'user', content: 'run the tests', turnId: 't1' } },
      { r: 'context', m: { role: 'assistant', content: `Running them.${pad(true)}`, toolCalls: [call] } },
      { r: 'context', m: { role: 'tool', toolCallId: 'call-1', toolName: 'Bash', content: `ok${pad(true)}` } },
    ];
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    await writeFile(path, text);
    const { timeline } = await scanLogFile(path, { leaveMessages: true });
    expect(timeline.onDisk).toBe(2);
    // The tool result's line is damaged after the log was read (same length, no longer JSON).
    const at = text.indexOf('{"r":"context","m":{"role":"tool"');
    await writeFile(path, text.slice(0, at) + 'x' + text.slice(at + 1));
    const context = timeline.context;
    expect(context[1]).toMatchObject({ role: 'assistant', toolCalls: [call] });
    expect(context[2]).toMatchObject({ role: 'tool', toolCallId: 'call-1', toolName: 'Bash', isError: true });
    expect(context[2]!.content).toMatch(/could not be read back/);
  });

  it('a session opened after a crash mid-step still gets the missing tool result while its long messages are on disk', async () => {
    const dir = await tempDir('deft-scan-messages-');
    const records: LogRecord[] = [
      { r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 },
      { r: 'context', m: { role: 'user', content: 'run the tests', turnId: 't1' } },
      { r: 'context', m: { role: 'assistant', content: `Running them.${pad(true)}`, toolCalls: [{ id: 'call-1', name: 'Bash', arguments: '{}' }] } },
    ];
    await writeFile(join(dir, LOG_FILE), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { session } = await Session.load(dir, { id: 's', title: 't', workspace: '/w', createdAt: 0, updatedAt: 0, turns: 1 }, Date.now);
    await session.loadContext();
    expect(session.context.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(session.context[1]!.content).toBe(`Running them.${pad(true)}`);
    expect(session.context[2]).toMatchObject({ role: 'tool', toolCallId: 'call-1', isError: true });
  });
});

describe('the long messages a scan holds', () => {
  it('are read once: what the timeline needs of them is kept from the chunk, to the same timeline as a full parse', async () => {
    const dir = await tempDir('deft-scan-once-');
    const path = join(dir, 'log.jsonl');
    let rereads = 0;
    let held = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const lines = randomLog(seed, true);
      const buffer = Buffer.from(lines.join('\n') + '\n');
      await writeFile(path, buffer);
      // The scan a session makes, reading again only through this counter.
      const { timeline, rereads: again } = scanCountingRereads(buffer, path);
      rereads += again;
      held += timeline.onDisk;
      await timeline.loadContext();
      expect(view(timeline), `seed ${seed}`).toEqual(view(scanLog(buffer).timeline));
    }
    expect(held).toBeGreaterThan(50);
    expect(rereads).toBe(0);
  });

  it('in a log that never compacts (all of them held to its end), are copied up to a budget; the rest are read again a span at a time, to the same timeline', async () => {
    const path = join(await tempDir('deft-scan-budget-'), 'log.jsonl');
    const header = JSON.stringify({ r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 });
    const lines = [header];
    for (let t = 0; t < 12_000; t++) {
      lines.push(JSON.stringify({ r: 'context', m: { role: 'user', content: `question ${t}`, turnId: `t${t}` } }));
      lines.push(JSON.stringify({ r: 'context', m: { role: 'assistant', content: `answer ${t}${pad(t % 5 === 0)}` } }));
    }
    const buffer = Buffer.from(lines.join('\n') + '\n');
    await writeFile(path, buffer);
    const { timeline, rereads } = scanCountingRereads(buffer, path);
    // About 3 MiB held to the end: at most 1 MiB of it copied, the rest read again in spans of at most 1 MiB.
    expect(buffer.length).toBeGreaterThan(3 << 20);
    expect(rereads).toBeGreaterThan(0);
    expect(rereads).toBeLessThanOrEqual(Math.ceil(buffer.length / (1 << 20)));
    await timeline.loadContext();
    expect(view(timeline)).toEqual(view(scanLog(buffer).timeline));
    expect(timeline.length).toBe(24_000);
  });

  it("a long message held while the log read as this Deft's is read again whole once a later header says it is not", async () => {
    const path = join(await tempDir('deft-scan-once-'), 'log.jsonl');
    const header = (version: number) => JSON.stringify({ r: 'header', version, sessionId: 's', workspace: '/w', createdAt: 0 });
    const m: ModelMessage = { role: 'user', content: `long${pad(true)}`, turnId: 't1' };
    const buffer = Buffer.from([header(LOG_VERSION), JSON.stringify({ r: 'context', m }), header(1), ''].join('\n'));
    await writeFile(path, buffer);
    const { timeline, trusted, rereads } = scanCountingRereads(buffer, path);
    expect(trusted).toBe(false);
    expect(rereads).toBe(1);
    expect(timeline.context).toEqual([m]);
  });
});

describe('contextSkeleton', () => {
  it('reads a context record without its text, whatever the text holds; anything else is left to a full parse', () => {
    const texts = ['plain', 'ends in a backslash \\', 'a quote " and ,"content":" inside', '\\"', '✓ ünïcode\n'.repeat(50), ''];
    const messages: ModelMessage[] = texts.flatMap((content): ModelMessage[] => [
      { role: 'user', content, turnId: 't1' },
      { role: 'assistant', content, reasoning: 'why', toolCalls: [{ id: 'c1', name: 'Bash', arguments: '{"content":"x"}' }] },
      { role: 'tool', toolCallId: 'c1', toolName: 'Bash', content, isError: true },
    ]);
    for (const m of messages) {
      const bytes = Buffer.from(JSON.stringify({ r: 'context', m }));
      expect(contextSkeleton(bytes), m.content as string).toEqual({ r: 'context', m: { ...m, content: '' } });
    }
    const parts: ModelMessage = { role: 'user', content: [{ type: 'text', text: 'hi' }] };
    expect(contextSkeleton(Buffer.from(JSON.stringify({ r: 'context', m: parts })))).toBeNull();
    expect(contextSkeleton(Buffer.from('{"r":"context","m":{"role":"tool","content":"torn'))).toBeNull();
    expect(contextSkeleton(Buffer.from(JSON.stringify({ r: 'state', key: 'content', value: 'x' })))).toBeNull();
  });
});

describe('the state events before the tail', () => {
  it('are compacted as the scan goes, to what compacting them all at once gives', () => {
    const lines = [JSON.stringify({ r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 })];
    const prefix: SessionEvent[] = [];
    let seq = 0;
    const event = (e: Record<string, unknown>, early: boolean) => {
      const full = { ...e, sessionId: 's', seq: ++seq, at: seq } as SessionEvent;
      if (early && !PAGED_EVENT_TYPES.has(full.type)) prefix.push(full);
      lines.push(JSON.stringify({ r: 'event', e: full }));
    };
    const turns = 3_000;
    for (let t = 0; t < turns; t++) {
      const early = t < turns - 3;
      const turnId = `t${t}`;
      event({ type: 'turn.started', turnId, text: `q${t}`, attachments: [], origin: 'user' }, early);
      event({ type: 'step.started', turnId, step: 1 }, early);
      const step = { inputTokens: t, outputTokens: 1, cachedTokens: t % 3 };
      event({ type: 'usage', turnId, step, total: { inputTokens: t * t, outputTokens: t }, ...(t % 2 ? { model: 'm1' } : {}) }, early);
      if (t % 7 === 0) event({ type: 'todo.updated', items: [{ title: `todo ${t}`, status: 'pending' }] }, early);
      if (t % 1_100 === 0) event({ type: 'goal.updated', goal: null }, early);
      event({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 1 }, early);
    }
    const buffer = Buffer.from(lines.join('\n') + '\n');
    const indexFrom = tailOffset(buffer, 3);
    const scan = scanLog(buffer, indexFrom);
    expect(prefix.length).toBeGreaterThan(9_000);
    expect(scan.earlier).toEqual(compactEarlierState(prefix));
    expect(scan.lines.every((line) => line.start >= indexFrom || !line.event)).toBe(true);
    expect(scan.usage).toEqual({ inputTokens: (turns - 1) ** 2, outputTokens: turns - 1 });
  });
});

describe('scanLogFile of a log that never compacted', () => {
  it('applies the messages it holds to its end a slice at a time, the process answering others in between', async () => {
    const dir = await tempDir('deft-scan-slices-');
    const path = join(dir, LOG_FILE);
    const lines = [JSON.stringify({ r: 'header', version: LOG_VERSION, sessionId: 's', workspace: '/w', createdAt: 0 })];
    for (let i = 0; i < 60_000; i++) lines.push(JSON.stringify({ r: 'context', m: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` } }));
    await writeFile(path, lines.join('\n') + '\n');
    // The messages applied between two turns of the event loop while the log is scanned.
    const append = vi.spyOn(Timeline.prototype, 'append');
    const seen: number[] = [];
    let done = false;
    const tick = () => {
      seen.push(append.mock.calls.length);
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    let scan: Awaited<ReturnType<typeof scanLogFile>>;
    try {
      scan = await scanLogFile(path, { chunk: 64 << 20 });
    } finally {
      done = true;
      seen.push(append.mock.calls.length);
      append.mockRestore();
    }
    expect(scan.problems).toEqual([]);
    expect(scan.timeline.context).toHaveLength(60_000);
    expect(scan.timeline.context[59_999]).toMatchObject({ content: 'message 59999' });
    const longest = Math.max(...seen.slice(1).map((count, i) => count - seen[i]!));
    expect(seen[seen.length - 1]).toBe(60_000);
    expect(longest).toBeLessThanOrEqual(2_000);
    await rm(dir, { recursive: true, force: true });
  });
});
