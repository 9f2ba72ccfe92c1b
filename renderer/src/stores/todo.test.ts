import { describe, expect, it } from 'vitest';
import type { TodoItem } from '#protocol';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { todoSlice } from './todo';

const list = (...statuses: TodoItem['status'][]): TodoItem[] => statuses.map((status, i) => ({ title: `Item ${i}`, status }));
const turn = (turnId: string) => ({ turnId, text: 'Go', attachments: [], origin: 'user' as const });

describe('the todo list from events', () => {
  it('drops a finished list at the next prompt and keeps an unfinished one', () => {
    const ev = eventsOf();
    const finished = reduce(todoSlice, todoSlice.empty, [ev('turn.started', turn('t1')), ev('todo.updated', { items: list('done', 'done') })]);
    expect(finished.items).toHaveLength(2);
    expect(reduce(todoSlice, finished, [ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 1 })]).items).toHaveLength(2);
    expect(reduce(todoSlice, finished, [ev('turn.started', turn('t2'))]).items).toEqual([]);

    const open = reduce(todoSlice, todoSlice.empty, [ev('todo.updated', { items: list('done', 'in_progress') })]);
    expect(reduce(todoSlice, open, [ev('turn.started', turn('t3'))])).toBe(open);
  });

  it('says stopped when the turn working on an unfinished list is cancelled, until the next prompt or update', () => {
    const ev = eventsOf();
    const open = reduce(todoSlice, todoSlice.empty, [ev('todo.updated', { items: list('done', 'in_progress') })]);
    const stopped = reduce(todoSlice, open, [ev('turn.ended', { turnId: 't', stopReason: 'cancelled', durationMs: 1 })]);
    expect(stopped.stopped).toBe(true);
    expect(reduce(todoSlice, stopped, [ev('turn.started', turn('t2'))]).stopped).toBe(false);
    expect(reduce(todoSlice, stopped, [ev('todo.updated', { items: list('done', 'done') })]).stopped).toBe(false);
    // A finished list is not stopped, and an error is not a stop.
    const done = reduce(todoSlice, todoSlice.empty, [ev('todo.updated', { items: list('done') })]);
    expect(reduce(todoSlice, done, [ev('turn.ended', { turnId: 't', stopReason: 'cancelled', durationMs: 1 })]).stopped).toBe(false);
    expect(reduce(todoSlice, open, [ev('turn.ended', { turnId: 't', stopReason: 'error', durationMs: 1 })]).stopped).toBe(false);
  });
});
