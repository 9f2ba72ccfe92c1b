import type { FeatureFactory } from '../features/types';
import { formatTodos, todoListTool, todosOf } from '../tools/todo-list/todo-list';

/** TodoList: the model's plan of work, persisted with the session and shown in the window's todo panel. */
export const todoFeature: FeatureFactory = () => ({
  name: 'todo',
  tools: (session) => [todoListTool(session)],
  systemPrompt: (session) => {
    const items = todosOf(session);
    if (!items.length) return undefined;
    return `## Current todo list\n${formatTodos(items)}`;
  },
});
