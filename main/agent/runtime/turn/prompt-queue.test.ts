import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { cliHost } from '../../../host/hosts';
import { createHarness, fastRetry, testCapabilities } from '#test-support/harness';
import { callChunk, textReply, toolStep, withoutReminders } from '#test-support/mock-steps';
import { waitTool } from '#test-support/tools';
import { waitFor } from '#test-support/wait';
import { DeftCore } from '../core';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const userTexts = (messages: ReadonlyArray<{ role: string; content: unknown }>) =>
  withoutReminders(messages)
    .filter((m) => m.role === 'user')
    .map((m) => String(m.content));
const types = (events: SessionEvent[], wanted: string[]) => events.filter((e) => wanted.includes(e.type)).map((e) => e.type);

/** Start a turn whose first step calls Wait (`ms`), and resolve once that call runs. */
async function busyTurn(hh: Harness, ms: number, prompt = 'work a while') {
  const calls = hh.sessionEvents('tool.call.started').length;
  hh.server.enqueue(toolStep(callChunk('Wait', { ms })));
  await hh.core.handlers.sendPrompt({ sessionId: hh.session.id, text: prompt });
  await waitFor(() => hh.sessionEvents('tool.call.started').length > calls);
}

describe('messages typed while a turn runs', () => {
  it('a queued message waits, can be edited and removed, and the next one is the next turn', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    const hh = h;
    const sessionId = hh.session.id;
    await busyTurn(hh, 300);
    hh.server.enqueue(textReply('first done'), textReply('second done'));
    const first = await hh.core.handlers.queuePrompt({ sessionId, text: 'and then the tests' });
    const second = await hh.core.handlers.queuePrompt({ sessionId, text: 'and the docs' });
    expect(first.queueId).toMatch(/^q-[0-9a-z]{8}$/);
    expect(first.turnId).toBeUndefined();
    await hh.core.handlers.editQueuedPrompt({ sessionId, queueId: first.queueId!, text: 'and then the unit tests' });
    await hh.core.handlers.removeQueuedPrompt({ sessionId, queueId: second.queueId! });
    await expect(hh.core.handlers.removeQueuedPrompt({ sessionId, queueId: second.queueId! })).rejects.toMatchObject({ code: 'not_found' });
    await waitFor(() => hh.sessionEvents('turn.ended').length === 2);
    await hh.core.turnDone(sessionId);

    const started = hh.sessionEvents('turn.started') as Array<Extract<SessionEvent, { type: 'turn.started' }>>;
    expect(started.map((e) => e.text)).toEqual(['work a while', 'and then the unit tests']);
    // The queued turn's request holds the whole first turn, then the edited message.
    const last = hh.server.requests.at(-1)!.body.messages;
    expect(userTexts(last)).toEqual(['work a while', 'and then the unit tests']);
    const removed = hh.sessionEvents('prompt.queue.removed') as Array<Extract<SessionEvent, { type: 'prompt.queue.removed' }>>;
    expect(removed.map((e) => [e.queueId, e.reason])).toEqual([
      [second.queueId, 'removed'],
      [first.queueId, 'sent'],
    ]);
    expect(removed[1]!.turnId).toBe(started[1]!.turnId);
  });

  it('a steer reaches the running turn after its tool calls, before the next request, and is shown there', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    const hh = h;
    const sessionId = hh.session.id;
    await busyTurn(hh, 300);
    hh.server.enqueue(textReply('Switched to Python.'));
    const { queueId } = await hh.core.handlers.queuePrompt({ sessionId, text: 'use Python instead', steer: true });
    await hh.core.turnDone(sessionId);

    // One turn, two requests: the second carries the tool's result, then the steer as the user's message.
    expect(hh.sessionEvents('turn.started')).toHaveLength(1);
    expect(hh.server.requests).toHaveLength(2);
    const messages = withoutReminders(hh.server.requests[1]!.body.messages);
    expect(messages.slice(-2).map((m) => [m.role, String(m.content)])).toEqual([
      ['tool', 'waited 300'],
      ['user', 'use Python instead'],
    ]);
    // Where it landed: after step 1's tool result, before step 2.
    const order = types(hh.sessionEvents(), ['tool.call.result', 'steer.delivered', 'step.started']);
    expect(order).toEqual(['step.started', 'tool.call.result', 'steer.delivered', 'step.started']);
    const delivered = hh.sessionEvents('steer.delivered')[0] as Extract<SessionEvent, { type: 'steer.delivered' }>;
    expect(delivered).toMatchObject({ queueId, step: 2, text: 'use Python instead' });
  });

  it('a steer that arrives as the model gives its final answer keeps the turn going', async () => {
    h = await createHarness();
    const hh = h;
    const sessionId = hh.session.id;
    hh.server.enqueue({ chunks: [{ text: 'All done.' }, { finish: 'stop' }], delayMs: 100 }, textReply('Also checked the README.'));
    await hh.core.handlers.sendPrompt({ sessionId, text: 'tidy up' });
    await waitFor(() => hh.server.requests.length === 1);
    await hh.core.handlers.queuePrompt({ sessionId, text: 'check the README too', steer: true });
    await hh.core.turnDone(sessionId);
    expect(hh.sessionEvents('turn.started')).toHaveLength(1);
    expect(userTexts(hh.server.requests[1]!.body.messages)).toEqual(['tidy up', 'check the README too']);
  });

  it('Stop still stops: what is queued waits for the user, who can send it as a turn', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    const hh = h;
    const sessionId = hh.session.id;
    await busyTurn(hh, 60_000);
    const { queueId } = await hh.core.handlers.queuePrompt({ sessionId, text: 'later' });
    await hh.core.handlers.cancelTurn({ sessionId });
    await hh.core.turnDone(sessionId);
    expect(hh.sessionEvents('turn.started')).toHaveLength(1);
    hh.server.enqueue(textReply('now'));
    const { turnId } = await hh.core.handlers.sendQueuedPrompt({ sessionId, queueId: queueId! });
    expect(turnId).toMatch(/^turn-/);
    await hh.core.turnDone(sessionId);
    expect((hh.sessionEvents('turn.started').at(-1) as Extract<SessionEvent, { type: 'turn.started' }>).text).toBe('later');
  });

  it('a queued message made a steer, and an idle session takes a queued message as a prompt', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    const hh = h;
    const sessionId = hh.session.id;
    await busyTurn(hh, 300);
    hh.server.enqueue(textReply('ok'));
    const { queueId } = await hh.core.handlers.queuePrompt({ sessionId, text: 'steer me' });
    expect(await hh.core.handlers.sendQueuedPrompt({ sessionId, queueId: queueId! })).toEqual({});
    await hh.core.turnDone(sessionId);
    expect(hh.sessionEvents('turn.started')).toHaveLength(1);
    expect(hh.sessionEvents('steer.delivered')).toHaveLength(1);
    hh.server.enqueue(textReply('direct'));
    const idle = await hh.core.handlers.queuePrompt({ sessionId, text: 'no turn runs' });
    expect(idle.queueId).toBeUndefined();
    await hh.core.turnDone(sessionId);
    expect(hh.sessionEvents('turn.started')).toHaveLength(2);
  });

  it('the log replays queue and steers exactly: the same events, the same context, and what still waits', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    const hh = h;
    const sessionId = hh.session.id;
    await busyTurn(hh, 300);
    hh.server.enqueue(textReply('steered'));
    await hh.core.handlers.queuePrompt({ sessionId, text: 'steer this way', steer: true });
    await hh.core.turnDone(sessionId);
    await busyTurn(hh, 60_000, 'long one');
    const { queueId } = await hh.core.handlers.queuePrompt({ sessionId, text: 'still waiting' });
    await hh.core.handlers.cancelTurn({ sessionId });
    await hh.core.turnDone(sessionId);
    const before = hh.sessionEvents().filter((e) => e.sessionId === sessionId);
    await hh.core.close();

    const again = new DeftCore({
      home: hh.home,
      workspace: hh.workspace,
      host: cliHost(),
      secrets: hh.secrets,
      retry: fastRetry,
      capabilities: testCapabilities,
      tools: () => [waitTool],
    });
    try {
      const opened = await again.handlers.openSession({ sessionId });
      const replayed = [...(opened.earlier ?? []), ...opened.events];
      const kinds = ['prompt.queued', 'prompt.queue.removed', 'steer.delivered'];
      expect(replayed.filter((e) => kinds.includes(e.type))).toEqual(before.filter((e) => kinds.includes(e.type)));
      // What still waited waits again: it can be sent, and the model reads the steer where it landed.
      hh.server.enqueue(textReply('sent after reload'));
      await again.handlers.sendQueuedPrompt({ sessionId, queueId: queueId! });
      await again.turnDone(sessionId);
      expect(userTexts(hh.server.requests.at(-1)!.body.messages)).toEqual(['work a while', 'steer this way', 'long one', 'still waiting']);
    } finally {
      await again.close();
    }
  });
});
