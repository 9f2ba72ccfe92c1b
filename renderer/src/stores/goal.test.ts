import { describe, expect, it } from 'vitest';
import type { Goal } from '#protocol';
import { goalSlice } from './goal';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';

describe('the goal from events', () => {
  it('is the latest goal, until it is cancelled (null)', () => {
    const ev = eventsOf();
    const goal: Goal = {
      id: 'g',
      objective: 'Make the tests pass',
      status: 'active',
      budget: { turns: 40 },
      used: { turns: 1, tokens: 900, timeMs: 2_000 },
      createdAt: 1,
      updatedAt: 2,
    };
    const paused: Goal = { ...goal, status: 'paused', reason: 'Paused by you.' };
    const state = reduce(goalSlice, goalSlice.empty, [ev('goal.updated', { goal }), ev('goal.updated', { goal: paused })]);
    expect(state.goal).toEqual(paused);
    expect(reduce(goalSlice, state, [ev('goal.updated', { goal: null })]).goal).toBeNull();
    expect(reduce(goalSlice, state, [ev('todo.updated', { items: [] })])).toBe(state);
  });

  it('counts the tokens an active goal uses between reports, and starts over at each report', () => {
    const ev = eventsOf();
    const goal: Goal = { id: 'g', objective: 'o', status: 'active', budget: {}, used: { turns: 0, tokens: 0, timeMs: 0 }, createdAt: 1, updatedAt: 1 };
    const total = { inputTokens: 0, outputTokens: 0 };
    let state = reduce(goalSlice, goalSlice.empty, [
      ev('goal.updated', { goal }),
      ev('usage', { turnId: 't', step: { inputTokens: 1200, outputTokens: 30 }, total }),
    ]);
    expect(state.tokensSince).toBe(1230);
    state = reduce(goalSlice, state, [
      ev('goal.updated', { goal: { ...goal, status: 'paused' } }),
      ev('usage', { turnId: 't', step: { inputTokens: 5, outputTokens: 5 }, total }),
    ]);
    expect(state.tokensSince).toBe(0);
  });
});
