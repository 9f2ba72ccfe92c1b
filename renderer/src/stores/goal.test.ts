import { describe, expect, it } from 'vitest';
import type { Goal } from '../../../protocol';
import { goalSlice } from './goal';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';

describe('the goal from events', () => {
  it('is the latest goal, until it is cancelled (null)', () => {
    const ev = eventsOf();
    const goal: Goal = { id: 'g', objective: 'Make the tests pass', status: 'active', budget: { turns: 40 }, used: { turns: 1, tokens: 900, timeMs: 2_000 }, createdAt: 1, updatedAt: 2 };
    const paused: Goal = { ...goal, status: 'paused', reason: 'Paused by you.' };
    const state = reduce(goalSlice, goalSlice.empty, [ev('goal.updated', { goal }), ev('goal.updated', { goal: paused })]);
    expect(state.goal).toEqual(paused);
    expect(reduce(goalSlice, state, [ev('goal.updated', { goal: null })]).goal).toBeNull();
    expect(reduce(goalSlice, state, [ev('todo.updated', { items: [] })])).toBe(state);
  });
});
