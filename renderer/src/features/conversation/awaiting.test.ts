import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { reduce } from '../../stores/session-slice';
import { eventsOf } from '../../stores/test-events';
import { emptyTranscript, transcriptSlice } from '../../stores/transcript';
import { awaitingFirstTokens } from './awaiting';

const thinkingAfter = (events: SessionEvent[]) => {
  const t = reduce(transcriptSlice, emptyTranscript, events);
  return awaitingFirstTokens(t.items, t.runningTurn);
};

describe('the Thinking… row', () => {
  const ev = eventsOf();
  const started = ev('turn.started', { turnId: 't1', text: 'Fix it', attachments: [], origin: 'user' });
  const step = ev('step.started', { turnId: 't1', step: 1 });

  it('shows from the prompt until the first tokens, also past a hook notice', () => {
    expect(thinkingAfter([])).toBe(false);
    expect(thinkingAfter([started, step])).toBe(true);
    const note = ev('step.note', { turnId: 't1', step: 1, message: 'Context added' });
    expect(thinkingAfter([started, step, note])).toBe(true);
  });

  it('goes as soon as reasoning, an answer or a tool call streams, or the turn ends', () => {
    expect(thinkingAfter([started, step, ev('thinking.delta', { turnId: 't1', step: 1, text: 'Hm' })])).toBe(false);
    expect(thinkingAfter([started, step, ev('assistant.delta', { turnId: 't1', step: 1, text: 'Sure' })])).toBe(false);
    const display = { kind: 'generic' as const, summary: 'Read a' };
    const call = ev('tool.call.started', { turnId: 't1', step: 1, callId: 'c1', name: 'Read', args: {}, description: 'Read a', display });
    expect(thinkingAfter([started, step, call])).toBe(false);
    expect(thinkingAfter([started, step, ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 5 })])).toBe(false);
  });

  it('a new turn after an answered one shows it again', () => {
    const answered = [
      started,
      step,
      ev('assistant.delta', { turnId: 't1', step: 1, text: 'Done' }),
      ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 5 }),
    ];
    const next = ev('turn.started', { turnId: 't2', text: 'Again', attachments: [], origin: 'user' });
    expect(thinkingAfter([...answered, next])).toBe(true);
  });
});
