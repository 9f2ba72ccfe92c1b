import type { TodoItem } from '../../../../protocol';
import type { FeatureFactory } from '../../contract/feature';
import { TODO_STATE_KEY, formatTodos, todoListTool, todosOf } from './tools/todo-list/todo-list';

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
    const items = before<TodoItem[]>(TODO_STATE_KEY) ?? [];
    if (JSON.stringify(items) === JSON.stringify(todosOf(session))) return;
    session.setState(TODO_STATE_KEY, items);
    session.emit({ type: 'todo.updated', items });
  },
});
