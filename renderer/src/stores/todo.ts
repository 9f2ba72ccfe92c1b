import { create } from 'zustand';
import type { TodoItem } from '#protocol';
import type { SessionSlice } from './session-slice';

/** The open session's todo list (the latest the agent wrote), and whether the turn working on it was stopped. */
export interface TodoState {
  items: TodoItem[];
  stopped: boolean;
}

const finished = (items: readonly TodoItem[]) => items.length > 0 && items.every((i) => i.status === 'done');

export const todoSlice: SessionSlice<TodoState> = {
  empty: { items: [], stopped: false },
  on: {
    'todo.updated': (_state, event) => ({ items: event.items, stopped: false }),
    // A finished list has done its job: the next prompt starts without it. An unfinished one stays, no longer stopped.
    'turn.started': (state) => (finished(state.items) ? todoSlice.empty : state.stopped ? { ...state, stopped: false } : state),
    'turn.ended': (state, event) =>
      event.stopReason === 'cancelled' && state.items.length > 0 && !finished(state.items) ? { ...state, stopped: true } : state,
  },
};

export const useTodo = create<TodoState>()(() => todoSlice.empty);
