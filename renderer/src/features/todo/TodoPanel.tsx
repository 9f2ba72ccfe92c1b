import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { useTodo } from '../../stores/todo';
import { TodoItems } from './TodoItems';

/** The agent's todo list, visible while one exists: progress, the item in progress highlighted, updated live. */
export function TodoPanel({ compact = false }: { compact?: boolean }) {
  const items = useTodo((s) => s.items);
  const [userOpen, setOpen] = useState(true);
  if (!items.length) return null;
  // One line while an approval waits; the user's choice comes back after.
  const open = userOpen && !compact;
  const done = items.filter((i) => i.status === 'done').length;
  const current = items.find((i) => i.status === 'in_progress');
  return (
    <section className="todo-panel" role="region" aria-label="Todo list">
      <button type="button" className="todo-header" aria-expanded={open} disabled={compact} onClick={() => setOpen(!open)}>
        <Icon name="chevron" size={12} className={`chevron${open ? ' chevron-open' : ''}`} />
        <span className="todo-heading">Todo</span>
        <span className="todo-progress-text">
          {done}/{items.length} done
        </span>
        <span className="todo-bar" aria-hidden="true">
          <span className="todo-bar-fill" style={{ width: `${(done / items.length) * 100}%` }} />
        </span>
        {!open && current ? <span className="todo-current">{current.title}</span> : null}
      </button>
      {open ? <TodoItems items={items} /> : null}
    </section>
  );
}
