import type { CapabilityFactory } from '#contract/capability';
import { setTodos, todoFact, todoSlot, todosOf } from './state';
import { todoListTool } from './tools/todo-list/todo-list';

/**
 * TodoList: the model's plan of work, persisted with the session, shown in the window's todo panel, rolled
 * back by undo. The model is told the list as a fact: TodoList's result says it, and a reminder says it
 * again when it changes otherwise (an undo) or after a compaction.
 */
export const todoCapability: CapabilityFactory = () => ({
  name: 'todo',
  tools: (session) => [todoListTool(session)],
  facts: (session) => [todoFact(todosOf(session))],
  onUndo: (session, before) => {
    const items = before(todoSlot);
    if (JSON.stringify(items) === JSON.stringify(todosOf(session))) return;
    setTodos(session, items);
  },
});
