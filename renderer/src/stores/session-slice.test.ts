import { describe, expect, it } from 'vitest';
import { type Handlers, combine, lift, reduce } from './session-slice';
import { eventsOf } from './test-events';

describe('session slices', () => {
  const ev = eventsOf();
  const log = (name: string): Handlers<string[]> => ({ 'turn.ended': (state, event) => [...state, `${name} ${event.turnId}`] });

  it('runs the handlers of every table for an event, in the order the tables are given', () => {
    const on = combine(log('first'), log('second'), { usage: (state) => [...state, 'usage'] });
    const slice = { empty: [] as string[], on };
    expect(
      reduce(slice, slice.empty, [
        ev('turn.ended', { turnId: 't', stopReason: 'end_turn', durationMs: 1 }),
        ev('usage', { turnId: 't', step: { inputTokens: 1, outputTokens: 1 }, total: { inputTokens: 1, outputTokens: 1 } }),
      ]),
    ).toEqual(['first t', 'second t', 'usage']);
  });

  it('passes events no handler owns, returning the very state it was given', () => {
    const slice = { empty: [] as string[], on: log('only') };
    expect(reduce(slice, slice.empty, [ev('todo.updated', { items: [] })])).toBe(slice.empty);
  });

  it('lifts a part’s handlers to the whole, putting the part back only when it changed', () => {
    const whole = { rows: ['a'], other: 1 };
    const on = lift<typeof whole, string[]>(
      { 'turn.ended': (rows, event) => (event.stopReason === 'end_turn' ? rows : [...rows, 'stopped']) },
      (state) => state.rows,
      (state, rows) => ({ ...state, rows }),
    );
    const slice = { empty: whole, on };
    expect(reduce(slice, whole, [ev('turn.ended', { turnId: 't', stopReason: 'end_turn', durationMs: 1 })])).toBe(whole);
    expect(reduce(slice, whole, [ev('turn.ended', { turnId: 't', stopReason: 'cancelled', durationMs: 1 })])).toEqual({ rows: ['a', 'stopped'], other: 1 });
  });
});
