import { create } from 'zustand';
import type { TodoItem } from '#protocol';
import type { SessionSlice } from './session-slice';

/** The open session's todo list (the latest the agent wrote). */
export interface TodoState {
  items: TodoItem[];
}

export const todoSlice: SessionSlice<TodoState> = {
  empty: { items: [] },
  on: { 'todo.updated': (_state, event) => ({ items: event.items }) },
};

export const useTodo = create<TodoState>()(() => todoSlice.empty);
