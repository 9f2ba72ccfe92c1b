import { z } from 'zod';
import { TodoItem } from '#protocol/schemas/todo';
import { type Fact, reminder } from '#contract/facts';
import type { SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';

/** The list lives in the session log's state records, so it is persisted, replayed on resume and rolled back by undo. */
export const todoSlot = stateSlot('todo', z.array(TodoItem), [] as TodoItem[]);

export function todosOf(session: SessionHandle): TodoItem[] {
  return session.state(todoSlot).get();
}

/** Persist the list and tell the UI. */
export function setTodos(session: SessionHandle, items: TodoItem[]): void {
  session.state(todoSlot).set(items);
  session.emit({ type: 'todo.updated', items });
}

/** `[status] title` lines, the form the model reads. */
export function formatTodos(items: readonly TodoItem[]): string {
  return items.map((i) => `[${i.status}] ${i.title}`).join('\n');
}

/** The todo list as a fact the model is kept up to date on (said again after a compaction or an undo). */
export function todoFact(items: readonly TodoItem[]): Fact {
  return {
    key: 'todo',
    mainAgentOnly: true,
    text: items.length ? reminder(`My todo list (TodoList updates it):\n${formatTodos(items)}`) : null,
    gone: reminder('My todo list is empty now.'),
  };
}
