import { appendFile, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '#test-support/harness';
import { scanLogFile } from './log-scan-file';
import { LOG_FILE, SNAPSHOT_EVERY_TURNS, Session, type SessionMeta } from './session';
import { readTailView } from './tail-view';

let dir: string;
let clock = 1_700_000_000_000;
const now = () => ++clock;
const meta: SessionMeta = { id: 's1', title: 't', workspace: '/ws', createdAt: 0, updatedAt: 0, turns: 0 };

beforeEach(async () => {
  dir = await tempDir('deft-tail-view-');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small deterministic generator, so a failing case can be run again. */
function random(seed: number): () => number {
  let s = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One turn as the runtime emits it, with state events now and then (todo, mode, goal, usage), and the model's messages. */
function turn(session: Session, n: number, next: () => number): void {
  const turnId = `turn-${n}`;
  session.appendContext({ role: 'user', content: `Question ${n}`, turnId });
  session.emit({ type: 'turn.started', turnId, text: `Question ${n}`, attachments: [], origin: 'user' });
  session.emit({ type: 'step.started', turnId, step: 1 });
  if (next() < 0.5) {
    const output = `line ${n} ✓ "quoted" \\ ünïcode\n`.repeat(Math.floor(next() * 40));
    session.appendContext({ role: 'assistant', content: '', toolCalls: [{ id: `c${n}`, name: 'Bash', arguments: '{}' }] });
    session.appendContext({ role: 'tool', toolCallId: `c${n}`, toolName: 'Bash', content: output });
    session.emit({ type: 'tool.call.result', turnId, callId: `c${n}`, name: 'Bash', isError: false, output, durationMs: 1 });
  }
  if (next() < 0.15) session.emit({ type: 'todo.updated', items: [{ title: `todo ${n}`, status: 'pending' }] });
  if (next() < 0.1) session.emit({ type: 'permission.mode.changed', mode: next() < 0.5 ? 'auto' : 'ask' } as never);
  if (next() < 0.05) session.setState('k', n);
  for (const word of ['Part ', `${n} `, 'is ', 'done.']) session.emit({ type: 'assistant.delta', turnId, step: 1, text: word });
  session.appendContext({ role: 'assistant', content: `Part ${n} is done.` });
  session.emit({ type: 'step.ended', turnId, step: 1, finishReason: 'end_turn' });
  session.countUsage(turnId, { inputTokens: 10, outputTokens: 2 }, next() < 0.5 ? 'm1' : 'm2');
  session.emit({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 5 });
}

/** The log as one from before snapshots: its snapshot lines left out; its lines now. */
async function leaveOutSnapshots(path: string): Promise<string[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter((line) => !line.startsWith('{"r":"snapshot",'));
  await writeFile(path, lines.join('\n'));
  return lines;
}

/** What a window gets from a session loaded the usual way (the whole log read). */
async function fullOpen(): Promise<{ events: unknown; before: unknown; earlier: unknown; problems: string[] }> {
  const { session, problems } = await Session.load(dir, meta, now);
  const { events, before, earlier } = session.tail();
  return { events, before, earlier, problems };
}

describe('readTailView', () => {
  it('gives a window what a full read of the log gives it, over random sessions, or null (the usual open then)', async () => {
    let shortcuts = 0;
    for (let seed = 1; seed <= 24; seed++) {
      await rm(join(dir, LOG_FILE), { force: true });
      const next = random(seed);
      const session = await Session.create(dir, meta, now);
      const turns = 20 + Math.floor(next() * 90);
      for (let n = 1; n <= turns; n++) {
        turn(session, n, next);
        await session.flush();
      }
      // Let go of now and then (a snapshot then), else a crash: the log ends as the last flush left it.
      if (next() < 0.4) await session.snapshot();
      const path = join(dir, LOG_FILE);
      const roll = next();
      if (roll < 0.15)
        await appendFile(path, '{"r":"event","e":{"type":"turn.sta'); // torn last line
      else if (roll < 0.25) {
        // A damaged line somewhere in the tail or before it.
        const lines = (await readFile(path, 'utf8')).split('\n');
        const at = Math.floor(lines.length * (0.5 + next() * 0.5));
        lines[at] = lines[at]!.slice(0, 10);
        await writeFile(path, lines.join('\n'));
      }
      const view = await readTailView(path);
      const full = await fullOpen();
      // Read back from the end a little at a time: the same.
      expect(await readTailView(path, 512), `seed ${seed}`).toEqual(view);
      if (view) {
        shortcuts++;
        expect(view, `seed ${seed}`).toEqual(full);
      }
      // Clean logs of more turns than a tail, written by a session that snapshots them, always take the shortcut.
      else expect(roll < 0.25 || turns <= SNAPSHOT_EVERY_TURNS, `seed ${seed}`).toBe(true);
    }
    expect(shortcuts).toBeGreaterThan(12);
  });

  it('is null for a log whose snapshot no longer points at its turn, and a turn cut short; a log without one is read from its start', async () => {
    const next = random(7);
    const session = await Session.create(dir, meta, now);
    for (let n = 1; n <= 60; n++) turn(session, n, next);
    // One flush: no snapshot is written before the events are.
    await session.flush();
    const path = join(dir, LOG_FILE);
    const text = await readFile(path, 'utf8');
    const withoutSnapshots = text
      .split('\n')
      .filter((line) => !line.startsWith('{"r":"snapshot",'))
      .join('\n');
    await writeFile(path, withoutSnapshots);
    expect(await readTailView(path)).toEqual(await fullOpen());
    // A snapshot pointing a few bytes off its turn's first line.
    const loaded = (await Session.load(dir, meta, now)).session;
    await loaded.snapshot();
    const good = await readFile(path, 'utf8');
    expect(await readTailView(path)).toEqual(await fullOpen());
    await writeFile(
      path,
      good.replace(/("r":"snapshot","tailFrom":)(\d+)/, (_m, key: string, at: string) => `${key}${Number(at) + 3}`),
    );
    expect(await readTailView(path)).toBeNull();
    // A turn that was running when Deft stopped: Session.load closes it, so the shortcut is not taken.
    await writeFile(path, good);
    const again = (await Session.load(dir, meta, now)).session;
    again.emit({ type: 'turn.started', turnId: 'open', text: 'go', attachments: [], origin: 'user' });
    await again.flush();
    expect(await readTailView(path)).toBeNull();
  });

  it("does not see a line damaged before its snapshot's tail after the snapshot was written: the full read, once the session is loaded, reports it", async () => {
    const next = random(5);
    const session = await Session.create(dir, meta, now);
    for (let n = 1; n <= 70; n++) {
      turn(session, n, next);
      await session.flush();
    }
    await session.snapshot();
    const path = join(dir, LOG_FILE);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const at = lines.findIndex((line) => line.includes('"type":"assistant.delta"'));
    // Damage that leaves every byte where it was (a line that moved would move the snapshot's tail: no shortcut then).
    lines[at] = 'x'.repeat(lines[at]!.length);
    await writeFile(path, lines.join('\n'));
    const view = await readTailView(path);
    const full = await fullOpen();
    expect(full.problems).toHaveLength(1);
    expect(view).toEqual({ ...full, problems: [] });
  });

  it('a replay ignores snapshots: the model reads the same with or without them', async () => {
    const next = random(3);
    const session = await Session.create(dir, meta, now);
    for (let n = 1; n <= 80; n++) {
      turn(session, n, next);
      await session.flush();
    }
    await session.snapshot();
    const path = join(dir, LOG_FILE);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n').filter((line) => line.startsWith('{"r":"snapshot",')).length).toBeGreaterThan(2);
    const withSnapshots = await scanLogFile(path);
    await writeFile(
      path,
      text
        .split('\n')
        .filter((line) => !line.startsWith('{"r":"snapshot",'))
        .join('\n'),
    );
    const without = await scanLogFile(path);
    expect(withSnapshots.problems).toEqual([]);
    expect(withSnapshots.timeline.context).toEqual(without.timeline.context);
    expect([...withSnapshots.timeline.state]).toEqual([...without.timeline.state]);
    expect(withSnapshots.lines.map((l) => l.seq)).toEqual(without.lines.map((l) => l.seq));
  });

  it('shows the tail of a log from before snapshots without parsing what the model reads: the same as a full read', async () => {
    const next = random(11);
    const session = await Session.create(dir, meta, now);
    for (let n = 1; n <= 300; n++) turn(session, n, next);
    await session.flush();
    const path = join(dir, LOG_FILE);
    const lines = await leaveOutSnapshots(path);
    const messages = lines.filter((line) => line.startsWith('{"r":"context",')).length;
    expect(messages).toBeGreaterThan(600);
    // Count the log's lines parsed, by kind.
    const parse = JSON.parse;
    const parsed = { messages: 0, rows: 0 };
    const row = /^\{"r":"event","e":\{"type":"(step\.started|step\.ended|assistant\.delta|tool\.call\.result)"/;
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      if (typeof text === 'string' && text.startsWith('{"r":"context",')) parsed.messages++;
      if (typeof text === 'string' && row.test(text)) parsed.rows++;
      return parse(text, reviver);
    });
    let view: Awaited<ReturnType<typeof readTailView>>;
    try {
      view = await readTailView(path);
    } finally {
      spy.mockRestore();
    }
    expect(parsed.messages).toBe(0);
    // The rows of the tail's 12 turns (the state events before it too), not those of 300 turns.
    expect(lines.filter((line) => row.test(line)).length).toBeGreaterThan(1000);
    expect(parsed.rows).toBeLessThan(12 * 10);
    expect(view).toEqual(await fullOpen());
  });

  it('a log from before snapshots gets one once loaded (Session.lacksSnapshot), and its next first open reads only its tail', async () => {
    const next = random(12);
    const session = await Session.create(dir, meta, now);
    for (let n = 1; n <= 200; n++) turn(session, n, next);
    await session.flush();
    const path = join(dir, LOG_FILE);
    await leaveOutSnapshots(path);
    const loaded = (await Session.load(dir, meta, now)).session;
    expect(loaded.lacksSnapshot).toBe(true);
    await loaded.snapshot();
    expect((await Session.load(dir, meta, now)).session.lacksSnapshot).toBe(false);
    // Only the log from its last snapshot's tail is read: count the bytes read.
    const probe = await open(path, 'r');
    const fileHandle = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => Promise<unknown> };
    await probe.close();
    const handleRead = vi.spyOn(fileHandle, 'read');
    let view: Awaited<ReturnType<typeof readTailView>>;
    try {
      view = await readTailView(path);
    } finally {
      handleRead.mockRestore();
    }
    const bytes = handleRead.mock.calls.reduce((sum, call) => sum + (typeof call[2] === 'number' ? call[2] : 0), 0);
    expect(bytes).toBeLessThan((await stat(path)).size / 4);
    expect(view).toEqual(await fullOpen());
  });
});
