import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEventOf } from '#protocol';
import { defaultCapabilities } from '../../capabilities';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { eventually } from '#test-support/processes';

// Two sessions in one folder (no worktrees): each change is credited to the session whose tool made it (issue 30,
// issue 35 item 8). What another session changed is labelled so, and never reverted as this session's.

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const read = (path: string) => readFile(join(h!.workspace, path), 'utf8').catch(() => null);

describe('two sessions in one folder', { timeout: 90_000 }, () => {
  it("each session's changes, turn review and rewind list the other session's edits as another session's, never as its own", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    const a = h.session.id;
    const b = (await h.core.handlers.createSession({})).session.id;
    const signal = join(h.home, 'b-is-done');
    // A's command runs while B writes its file: A's step takes in the whole folder, B's file with it.
    h.server.route(
      'A-WORK',
      toolStep(callChunk('Bash', { command: `while [ ! -e '${signal}' ]; do sleep 0.05; done; echo by-a > a.txt` })),
      textReply('A done.'),
    );
    h.server.route('B-WORK', toolStep(callChunk('Write', { path: 'b.txt', content: 'by b\n' })), textReply('B done.'));
    const { turnId: aTurn } = await h.core.handlers.sendPrompt({ sessionId: a, text: 'A-WORK: make a.txt' });
    await eventually(() => expect(h!.sessionEvents('tool.call.started').some((e) => (e as SessionEventOf<'tool.call.started'>).name === 'Bash')).toBe(true));
    const bTurn = await h.run('B-WORK: make b.txt', b);
    await import('node:fs/promises').then((fs) => fs.writeFile(signal, ''));
    await h.core.turnDone(a);
    expect([await read('a.txt'), await read('b.txt')]).toEqual(['by-a\n', 'by b\n']);

    const own = (files: Array<{ path: string; otherSession?: boolean }>) => files.map((f) => [f.path, f.otherSession === true]);
    // A's turn: a.txt is its own; b.txt, which its step took in, is B's.
    expect(own((await h.core.handlers.reviewChanges({ sessionId: a, turnId: aTurn })).files)).toEqual([
      ['a.txt', false],
      ['b.txt', true],
    ]);
    const aChanges = h.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === aTurn) as SessionEventOf<'turn.changes'>;
    expect(aChanges.files.map((f) => f.path)).toEqual(['a.txt']);
    // Each session's changes: its own file, the other's labelled.
    expect(own((await h.core.handlers.reviewChanges({ sessionId: a })).files)).toEqual([
      ['a.txt', false],
      ['b.txt', true],
    ]);
    expect(own((await h.core.handlers.reviewChanges({ sessionId: b })).files)).toEqual([
      ['a.txt', true],
      ['b.txt', false],
    ]);
    // Never reverted as this session's.
    await expect(h.core.handlers.revertChange({ sessionId: a, path: 'b.txt' })).rejects.toThrow(/changed by another session/);
    await expect(h.core.handlers.revertChange({ sessionId: b, turnId: bTurn, path: 'a.txt' })).rejects.toThrow(/changed by another session|did not change/);
    expect(await read('b.txt')).toBe('by b\n');

    // Rewinding A to before its prompt puts a.txt back and keeps B's file unless asked.
    const preview = await h.core.handlers.previewRewind({ sessionId: a, turnId: aTurn, scope: 'code' });
    expect(preview.files.map((f) => [f.path, f.outside, f.otherSession === true])).toEqual([
      ['a.txt', false, false],
      ['b.txt', true, true],
    ]);
    await h.core.handlers.rewind({ sessionId: a, turnId: aTurn, scope: 'code', includeOutside: false });
    expect([await read('a.txt'), await read('b.txt')]).toEqual([null, 'by b\n']);
  });
});
