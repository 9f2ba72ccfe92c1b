import { describe, expect, it } from 'vitest';
import { queueSlice } from './queue';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { emptyTranscript, transcriptSlice } from './transcript';

describe('the queue from events', () => {
  it('shows what waits, edited in place, and forgets what was sent, delivered or removed', () => {
    const ev = eventsOf();
    const state = reduce(queueSlice, queueSlice.empty, [
      ev('prompt.queued', { queueId: 'q-aaaaaaaa', text: 'first', steer: false }),
      ev('prompt.queued', { queueId: 'q-bbbbbbbb', text: 'second', steer: false }),
      ev('prompt.queued', { queueId: 'q-cccccccc', text: 'third', steer: true }),
      ev('prompt.queue.edited', { queueId: 'q-bbbbbbbb', text: 'second, edited', steer: true }),
      ev('prompt.queue.removed', { queueId: 'q-aaaaaaaa', reason: 'removed' }),
    ]);
    expect(state.items).toEqual([
      { queueId: 'q-bbbbbbbb', text: 'second, edited', steer: true },
      { queueId: 'q-cccccccc', text: 'third', steer: true },
    ]);
    const after = reduce(queueSlice, state, [
      ev('prompt.queue.removed', { queueId: 'q-bbbbbbbb', reason: 'delivered', turnId: 't1' }),
      ev('prompt.queue.removed', { queueId: 'q-cccccccc', reason: 'sent', turnId: 't2' }),
    ]);
    expect(after.items).toEqual([]);
  });

  it('puts a delivered steer in the transcript between the steps it came between', () => {
    const ev = eventsOf();
    const events = [
      ev('turn.started', { turnId: 't1', text: 'go', attachments: [], origin: 'user' }),
      ev('tool.call.started', { turnId: 't1', step: 1, callId: 'c1', name: 'Bash', args: {}, description: 'ls', display: { kind: 'generic', summary: 'ls' } }),
      ev('tool.call.result', { turnId: 't1', callId: 'c1', name: 'Bash', isError: false, output: 'x', durationMs: 1 }),
      ev('steer.delivered', { turnId: 't1', step: 2, queueId: 'q-aaaaaaaa', text: 'use Python' }),
      ev('assistant.delta', { turnId: 't1', step: 2, text: 'OK' }),
    ];
    const { items } = reduce(transcriptSlice, emptyTranscript, events);
    expect(items.map((i) => i.kind)).toEqual(['user', 'tool', 'steer', 'assistant']);
    expect(items[2]).toMatchObject({ kind: 'steer', step: 2, text: 'use Python' });
  });
});
