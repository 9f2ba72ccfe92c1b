import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';

let h: Awaited<ReturnType<typeof createHarness>>;
afterEach(async () => h?.dispose());

describe('finding 11: tool arguments nested 10,000 deep', () => {
  it('get an error result the model can act on; the turn and the session log carry on', async () => {
    h = await createHarness();
    const depth = 10_000;
    const args = `{"path":"a.txt","extra":${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}}`;
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'call_deep', name: 'Read', args } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    await h.run('read it');
    const ended = h.sessionEvents('turn.ended').at(-1) as Extract<SessionEvent, { type: 'turn.ended' }>;
    expect(ended.stopReason, JSON.stringify(ended.error)).toBe('end_turn');
    const message = h.server.requests.flatMap((r) => r.body.messages).find((m) => m.role === 'tool' && m.tool_call_id === 'call_deep');
    expect(String(message?.content)).toMatch(/nested more than \d+ levels deep/);
    // The log was written and replays without problems.
    const reopened = await h.core.handlers.openSession({ sessionId: h.session.id });
    expect(reopened.problems).toEqual([]);
  });
});
