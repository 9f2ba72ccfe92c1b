import type { QuietHook, QuietHooksItem } from '../../stores/hooks';
import './hooks.css';

/**
 * Hooks that ran around a tool call and changed nothing: one small chip on the card ("2 hooks ran"),
 * opened (by click or keyboard) to what each said. Hooks that blocked or changed the call get rows instead.
 */
export function HookBadge({ hooks }: { hooks: readonly QuietHook[] | undefined }) {
  if (!hooks?.length) return null;
  const label = hooks.length === 1 ? '1 hook ran' : `${hooks.length} hooks ran`;
  return (
    <details className="hook-badge">
      <summary title={hooks.map((h) => h.text).join('\n')}>{label}</summary>
      <ul className="hook-badge-detail">
        {hooks.map((h) => (
          <li key={h.id}>{h.text}</li>
        ))}
      </ul>
    </details>
  );
}

/** Hooks of the session's own events that changed nothing (UserPromptSubmit, Stop…): the same chip, on a line of its own. */
export function QuietHooksLine({ item }: { item: QuietHooksItem }) {
  return (
    <div className="hook-line">
      <HookBadge hooks={item.hooks} />
    </div>
  );
}
