import { z } from 'zod';
import type { TodoItem } from '#protocol';
import type { SessionHandle } from '#contract/capability';
import { defineTool } from '#contract/tool';
import { formatTodos, setTodos, todoFact, todosOf } from '../../state';
import description from './todo-list.md?raw';
import { toolInput } from '#contract/tool-input';

const Input = toolInput('TodoList', () =>
  z
    .object({
      todos: z
        .array(
          z
            .object({
              title: z.string().trim().min(1).max(500).describe('What to do, in a few words.'),
              status: z.enum(['pending', 'in_progress', 'done']),
            })
            .strict(),
        )
        .max(100)
        .optional()
        .describe('The whole new list. Omit to read the list; [] clears it.'),
    })
    .strict(),
);

function summary(items: readonly TodoItem[]): string {
  const done = items.filter((i) => i.status === 'done').length;
  return `${done}/${items.length} done`;
}

export function todoListTool(session: SessionHandle) {
  return defineTool({
    name: 'TodoList',
    // Only changes the session's own todo list.
    policy: { approval: 'self', mainAgentOnly: false },
    description,
    input: Input,
    resolveExecution: (args) => {
      const items = args.todos;
      if (items === undefined) {
        return {
          description: 'Read the todo list',
          display: { kind: 'todo_list', items: todosOf(session) },
          approvalRule: 'TodoList',
          readOnly: true,
          execute: async () => {
            const current = todosOf(session);
            return {
              output: current.length ? formatTodos(current) : 'The todo list is empty.',
              display: { kind: 'todo_list', items: current },
              announces: [todoFact(current)],
            };
          },
        };
      }
      // No accesses: todo calls run one at a time, in the order the model issued them.
      return {
        description: items.length ? `Update the todo list (${summary(items)})` : 'Clear the todo list',
        display: { kind: 'todo_list', items },
        approvalRule: 'TodoList',
        execute: async () => {
          setTodos(session, items);
          const announces = [todoFact(items)];
          if (!items.length) return { output: 'The todo list is cleared.', display: { kind: 'todo_list', items }, announces };
          const active = items.filter((i) => i.status === 'in_progress').length;
          const reminder =
            active === 1 || items.every((i) => i.status === 'done')
              ? 'Mark each item done as soon as it is finished.'
              : `Keep exactly one item in_progress while you work (now ${active}).`;
          return { output: `Todo list updated (${summary(items)}):\n${formatTodos(items)}\n${reminder}`, display: { kind: 'todo_list', items }, announces };
        },
      };
    },
  });
}
