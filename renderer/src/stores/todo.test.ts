import { describe, expect, it } from 'vitest';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { todoSlice } from './todo';

describe('the todo list from events', () => {
  it('is the latest list the agent wrote (an empty list clears it)', () => {
    const ev = eventsOf();
    const first = [
      { title: 'Read', status: 'in_progress' as const },
      { title: 'Fix', status: 'pending' as const },
    ];
    const second = [
      { title: 'Read', status: 'done' as const },
      { title: 'Fix', status: 'in_progress' as const },
    ];
    const state = reduce(todoSlice, todoSlice.empty, [ev('todo.updated', { items: first }), ev('todo.updated', { items: second })]);
    expect(state.items).toEqual(second);
    expect(reduce(todoSlice, state, [ev('todo.updated', { items: [] })]).items).toEqual([]);
    expect(reduce(todoSlice, state, [ev('goal.updated', { goal: null })])).toBe(state);
  });
});
