import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { defaultCapabilities } from '../../capabilities';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { eventually } from '#test-support/processes';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

/** What a transcript shows of an event: everything but where and when it was recorded. */
function shown(events: readonly SessionEvent[]) {
  return events
    .filter((e) => e.type !== 'session.updated')
    .map((e) => {
      const { seq: _s, at: _a, sessionId: _i, fromSeq: _f, ...rest } = e as SessionEvent & { fromSeq?: number };
      return rest;
    });
}

async function allEvents(h: Harness, sessionId: string): Promise<SessionEvent[]> {
  const opened = await h.core.handlers.openSession({ sessionId });
  return [...(opened.earlier ?? []), ...opened.events].sort((a, b) => a.seq - b.seq);
}

/** Three prompts: the first writes a file through a tool call, each answers. */
async function threePrompts(h: Harness): Promise<string[]> {
  h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'one\n' })), textReply('answer one'));
  const first = await h.run('prompt one');
  h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'two\n' })), textReply('answer two'));
  const second = await h.run('prompt two');
  h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'three\n' })), textReply('answer three'));
  const third = await h.run('prompt three');
  return [first, second, third];
}

describe('forkSession', { timeout: 60_000 }, () => {
  it('fork at prompt 2 of 3 replays exactly 2: the transcript, and the next request carries the same messages', async () => {
    h = await createHarness();
    const source = h.session.id;
    const [, second] = await threePrompts(h);
    const original = await allEvents(h, source);
    const logPath = join(workspaceSessionsDir(h.home, h.workspace), source, 'log.jsonl');
    const logBefore = await readFile(logPath, 'utf8');

    const { session: fork, atPrompt, restored } = await h.core.handlers.forkSession({ sessionId: source, atPrompt: 2, files: 'keep' });
    expect(atPrompt).toBe(2);
    expect(restored).toBeNull();
    expect(fork.id).not.toBe(source);
    expect(fork.forkedFrom).toEqual({ sessionId: source, atPrompt: 2, title: 'prompt one' });
    expect(fork.turns).toBe(2);

    // The transcript: every event of the first two turns, as they were, stamped with the fork's id.
    const forked = await allEvents(h, fork.id);
    const endOfSecond = original.findIndex((e) => e.type === 'turn.ended' && e.turnId === second);
    expect(shown(forked)).toEqual(shown(original.slice(0, endOfSecond + 1)));
    expect(forked.every((e) => e.sessionId === fork.id)).toBe(true);
    expect(forked.filter((e) => e.type === 'turn.started')).toHaveLength(2);

    // The model's context: prompt 3 sent again in the fork makes the request prompt 3 made in the original.
    h.server.enqueue(textReply('answer three, forked'));
    const originalThird = h.server.requests.at(-2)!; // prompt 3's first request (then its final answer)
    await h.run('prompt three', fork.id);
    const forkedThird = h.server.requests.at(-1)!;
    expect(forkedThird.body.messages.slice(1)).toEqual(originalThird.body.messages.slice(1));
    expect(JSON.stringify(forkedThird.body.messages)).not.toContain('answer three"');

    // The original is untouched (it may have written what it held in memory, never anything of the fork).
    const logAfter = await readFile(logPath, 'utf8');
    expect(logAfter.startsWith(logBefore)).toBe(true);
    expect(logAfter).not.toContain(fork.id);
  });

  it('refuses clearly: an unknown session, a session id with path characters, a prompt out of range', async () => {
    h = await createHarness();
    h.server.enqueue(textReply('one'));
    await h.run('only prompt');
    const fork = h.core.handlers.forkSession;
    await expect(fork({ sessionId: '20990101-000000-abcdef', files: 'keep' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(fork({ sessionId: '../../etc', files: 'keep' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(fork({ sessionId: h.session.id, atPrompt: 2, files: 'keep' })).rejects.toThrow('Cannot fork at prompt 2: it has 1 prompt: use 1.');
    await expect(fork({ sessionId: h.session.id, turnId: 'turn-nope', files: 'keep' })).rejects.toMatchObject({ code: 'not_found' });
    // Nothing was left behind by the refusals.
    expect((await h.core.handlers.listSessions({})).sessions).toHaveLength(1);
  });

  it('a session running a turn forks what it has finished, and refuses to restore files meanwhile', async () => {
    h = await createHarness();
    h.server.enqueue(textReply('one'));
    await h.run('first');
    h.server.enqueue({ chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 1_500 });
    const { turnId } = await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'second' });
    await eventually(() => expect(h!.server.requests).toHaveLength(2));
    await expect(h.core.handlers.forkSession({ sessionId: h.session.id, atPrompt: 2, files: 'keep' })).rejects.toMatchObject({ code: 'busy' });
    await expect(h.core.handlers.forkSession({ sessionId: h.session.id, files: 'restore' })).rejects.toMatchObject({ code: 'busy' });
    const { session: fork, atPrompt } = await h.core.handlers.forkSession({ sessionId: h.session.id, files: 'keep' });
    expect(atPrompt).toBe(1);
    const events = await allEvents(h, fork.id);
    expect(events.some((e) => 'turnId' in e && e.turnId === turnId)).toBe(false);
    expect(events.filter((e) => e.type === 'turn.ended')).toHaveLength(1);
    await h.core.turnDone(h.session.id);
  });

  it('with checkpoints, restores the files as they were at that prompt, and the restore can be undone', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await threePrompts(h);
    const read = () => readFile(join(h!.workspace, 'a.txt'), 'utf8');
    expect(await read()).toBe('three\n');
    const { session: fork, restored } = await h.core.handlers.forkSession({ sessionId: h.session.id, atPrompt: 1, files: 'restore' });
    expect(restored?.restored).toEqual(['a.txt']);
    expect(await read()).toBe('one\n');
    expect((await allEvents(h, fork.id)).some((e) => e.type === 'rewind.done')).toBe(true);
    await h.core.handlers.undoRewind({ sessionId: fork.id });
    expect(await read()).toBe('three\n');
    // The original's own rewinds are untouched by the fork's.
    await expect(h.core.handlers.undoRewind({ sessionId: h.session.id })).rejects.toThrow('There is no rewind to undo');
  });
});
