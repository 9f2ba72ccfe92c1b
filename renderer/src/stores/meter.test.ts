import { describe, expect, it } from 'vitest';
import { meterSlice } from './meter';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';

describe('the meter from events', () => {
  it('keeps the latest context measure, marks it stale after an undo, and takes the total after a compaction', () => {
    const ev = eventsOf();
    const breakdown = { system: 2000, tools: 3000, conversation: 500, toolResults: 1500 };
    let state = reduce(meterSlice, meterSlice.empty, [
      ev('context.measured', { turnId: 't', tokens: 7000, contextWindow: 128_000, compactAt: 0.85, breakdown }),
    ]);
    expect(state.context).toEqual({ tokens: 7000, contextWindow: 128_000, compactAt: 0.85, breakdown, stale: false });
    state = reduce(meterSlice, state, [ev('turns.undone', { turnIds: ['t'] })]);
    expect(state.context?.stale).toBe(true);
    state = reduce(meterSlice, state, [
      ev('compaction.ended', { compactionId: 'c', trigger: 'manual', outcome: 'compacted', tokensBefore: 7000, tokensAfter: 2500 }),
    ]);
    expect(state.context).toEqual({ tokens: 2500, contextWindow: 128_000, compactAt: 0.85, breakdown: null, stale: false });
  });

  it('adds up tokens per model, cached ones apart', () => {
    const ev = eventsOf();
    const total = { inputTokens: 0, outputTokens: 0 };
    const state = reduce(meterSlice, meterSlice.empty, [
      ev('usage', { turnId: 't', step: { inputTokens: 1000, outputTokens: 50, cachedTokens: 800 }, total, model: 'gpt-4.1' }),
      ev('usage', { turnId: 't', step: { inputTokens: 1200, outputTokens: 60 }, total, model: 'gpt-4.1' }),
      ev('usage', { turnId: 't', step: { inputTokens: 10, outputTokens: 1 }, total }),
    ]);
    expect(state.byModel).toEqual({
      'gpt-4.1': { inputTokens: 2200, outputTokens: 110, cachedTokens: 800 },
      '': { inputTokens: 10, outputTokens: 1, cachedTokens: 0 },
    });
  });
});
