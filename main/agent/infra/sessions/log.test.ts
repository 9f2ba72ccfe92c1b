import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogWriter, parseLog, stringifyRecord } from './log';
import { needsStrictCheck } from './log-scan';
import { scanLogFile } from './log-scan-file';
import { readLogLines } from './log-read';
import { LOG_VERSION } from './records';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deft-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const state = (key: string) => JSON.stringify({ r: 'state', key, value: 1 });

describe('LogWriter.endTornTail', () => {
  it('cuts a torn last record, so the next append starts a line of its own', async () => {
    const path = join(dir, 'log.jsonl');
    await writeFile(path, `${state('a')}\n${'x'.repeat(70_000)}{"r":"sta`);
    const writer = new LogWriter(path);
    await writer.endTornTail();
    writer.append({ r: 'state', key: 'b', value: 1 });
    await writer.flush();
    const replay = await parseLog(await readFile(path, 'utf8'));
    expect(replay.problems).toEqual([]);
    expect([...replay.timeline.state.keys()]).toEqual(['a', 'b']);
  });

  it('ends a complete last record that lost only its line feed, keeping it', async () => {
    const path = join(dir, 'log.jsonl');
    await writeFile(path, `${state('a')}\n${state('b')}`);
    const writer = new LogWriter(path);
    await writer.endTornTail();
    writer.append({ r: 'state', key: 'c', value: 1 });
    await writer.flush();
    const replay = await parseLog(await readFile(path, 'utf8'));
    expect(replay.problems).toEqual([]);
    expect([...replay.timeline.state.keys()]).toEqual(['a', 'b', 'c']);
  });

  it('leaves a clean log, an empty one and a missing one alone', async () => {
    const clean = join(dir, 'clean.jsonl');
    await writeFile(clean, `${state('a')}\n`);
    await new LogWriter(clean).endTornTail();
    expect(await readFile(clean, 'utf8')).toBe(`${state('a')}\n`);
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '');
    await new LogWriter(empty).endTornTail();
    expect(await readFile(empty, 'utf8')).toBe('');
    await expect(new LogWriter(join(dir, 'missing.jsonl')).endTornTail()).resolves.toBeUndefined();
  });
});

describe('stringifyRecord (finding 11)', () => {
  it('writes a record nested 10,000 deep with its deep parts replaced instead of throwing', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const line = stringifyRecord({ r: 'state', key: 'k', value: deep } as never);
    expect(JSON.parse(line)).toMatchObject({ r: 'state', key: 'k' });
    expect(line).toContain('[nested too deeply to record]');
  });
});

describe('a log this Deft did not write (another version)', () => {
  const event = (seq: number, extra: object) => JSON.stringify({ r: 'event', e: { type: 'turn.started', seq, sessionId: 's', at: 1, ...extra } });
  const good = { turnId: 't1', text: 'hi', attachments: [], origin: 'user' };
  const log =
    [JSON.stringify({ r: 'header', version: LOG_VERSION - 1, sessionId: 's' }), event(1, good), event(2, { turnId: 't2', origin: 'nobody' })].join('\n') + '\n';

  it('has each event parsed against the protocol, from a file as from a buffer: a malformed one is skipped and said', async () => {
    const path = join(dir, 'old.jsonl');
    await writeFile(path, log);
    const scan = await scanLogFile(path);
    expect(scan.trusted).toBe(false);
    expect(scan.lines.map((l) => l.seq)).toEqual([1]);
    expect(scan.problems).toEqual(['Line 3 of the session log holds an event this version cannot read and was skipped.']);
    expect((await readLogLines(path, scan.lines, false))[0]).toMatchObject({ type: 'turn.started', turnId: 't1' });
    expect((await parseLog(log)).events.map((e) => e.seq)).toEqual([1]);
  });

  it('is told apart by its first bytes; a log this Deft wrote needs no protocol schemas', () => {
    expect(needsStrictCheck(Buffer.from(log))).toBe(true);
    expect(needsStrictCheck(Buffer.from(JSON.stringify({ r: 'header', version: LOG_VERSION, sessionId: 's' }) + '\n'))).toBe(false);
    expect(needsStrictCheck(Buffer.from(state('a')))).toBe(true);
    expect(needsStrictCheck(Buffer.alloc(0))).toBe(false);
  });
});
