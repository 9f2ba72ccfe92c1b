import { z } from 'zod';

// The model's todo list.

/** One item of the todo list. */
export const TodoItem = z.object({ title: z.string(), status: z.enum(['pending', 'in_progress', 'done']) });
export type TodoItem = z.infer<typeof TodoItem>;

/** Shapes of the todo events, shared by events.ts (built with its schema, on first use). */
export const todoEventShapes = () =>
  ({
    /** The todo list changed. */
    'todo.updated': { items: z.array(TodoItem) },
  }) as const;
