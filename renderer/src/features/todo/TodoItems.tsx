import type { TodoItem } from '#protocol';

const MARKS = { pending: '○', in_progress: '◐', done: '✓' } as const;
const STATUS_LABELS = { pending: 'pending', in_progress: 'in progress', done: 'done' } as const;

/** A todo list: status marks, the item in progress highlighted, done items dimmed. */
export function TodoItems({ items }: { items: readonly TodoItem[] }) {
  return (
    <ol className="todo-items">
      {items.map((item, index) => (
        <li key={`${index}:${item.title}`} className={`todo-item todo-${item.status}`} aria-current={item.status === 'in_progress' ? 'step' : undefined}>
          <span className="todo-mark" aria-hidden="true">
            {MARKS[item.status]}
          </span>
          <span className="todo-title">{item.title}</span>
          <span className="visually-hidden">({STATUS_LABELS[item.status]})</span>
        </li>
      ))}
    </ol>
  );
}
