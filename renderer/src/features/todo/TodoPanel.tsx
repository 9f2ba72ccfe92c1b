import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { useTodo } from '../../stores/todo';
import { TodoItems } from './TodoItems';

/**
 * The agent's todo list, visible while one exists: progress, the item in progress highlighted, updated live.
 * A finished list folds to one line until the next prompt drops it; a list whose turn was stopped says so.
 */
export function TodoPanel({ compact = false }: { compact?: boolean }) {
  const items = useTodo((s) => s.items);
  const stopped = useTodo((s) => s.stopped);
  const [userOpen, setOpen] = useState<boolean | null>(null);
  if (!items.length) return null;
  const done = items.filter((i) => i.status === 'done').length;
  const finished = done === items.length;
  // One line while an approval waits, and once every item is done, unless the user opened it.
  const open = !compact && (userOpen ?? !finished);
  const current = items.find((i) => i.status === 'in_progress');
  return (
    <section className={`todo-panel${finished ? ' todo-finished' : ''}`} role="region" aria-label="Todo list">
      <button type="button" className="todo-header" aria-expanded={open} disabled={compact} onClick={() => setOpen(!open)}>
        <Icon name="chevron" size={12} className={`chevron${open ? ' chevron-open' : ''}`} />
        {finished ? <Icon name="check" size={12} className="todo-done-icon" /> : null}
        <span className="todo-heading">Todo</span>
        <span className="todo-progress-text">
          {done}/{items.length} done
        </span>
        {stopped ? <span className="todo-stopped">stopped</span> : null}
        {finished ? null : (
          <span className="todo-bar" aria-hidden="true">
            <span className="todo-bar-fill" style={{ width: `${(done / items.length) * 100}%` }} />
          </span>
        )}
        {!open && current ? <span className="todo-current">{current.title}</span> : null}
      </button>
      {open ? <TodoItems items={items} /> : null}
    </section>
  );
}
