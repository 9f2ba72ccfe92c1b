import type { FeatureFactory } from '../../contract/feature';
import { formatTodos, setTodos, todoSlot, todosOf } from './state';
import { todoListTool } from './tools/todo-list/todo-list';

/** TodoList: the model's plan of work, persisted with the session, shown in the window's todo panel, re-attached after a compaction and rolled back by undo. */
export const todoFeature: FeatureFactory = () => ({
  name: 'todo',
  tools: (session) => [todoListTool(session)],
  systemPrompt: (session) => {
    const items = todosOf(session);
    if (!items.length) return undefined;
    return `## Current todo list\n${formatTodos(items)}`;
  },
  onCompaction: (session) => {
    const items = todosOf(session);
    if (!items.length) return [];
    return [`<system-reminder>\nMy todo list, re-attached after the compaction (update it with TodoList as I work):\n${formatTodos(items)}\n</system-reminder>`];
  },
  onUndo: (session, before) => {
    const items = before(todoSlot);
    if (JSON.stringify(items) === JSON.stringify(todosOf(session))) return;
    setTodos(session, items);
  },
});
