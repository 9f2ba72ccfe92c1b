import { SHORTCUT_GROUPS } from './shortcuts';
import './shortcuts.css';

/** Every shortcut, by where it works: the shortcuts sheet (Ctrl+/) and Settings → Keyboard shortcuts show it. */
export function ShortcutList() {
  return (
    <div className="shortcut-groups">
      {SHORTCUT_GROUPS.map((group) => (
        <section key={group.title} className="shortcut-group" aria-labelledby={`shortcuts-${group.title}`}>
          <h3 className="section-title" id={`shortcuts-${group.title}`}>
            {group.title}
          </h3>
          <dl className="shortcut-list">
            {group.shortcuts.map((s) => (
              <div key={s.keys.join('+') + s.does} className="shortcut">
                <dt>
                  {s.keys.map((k, i) => (
                    <span key={i}>
                      {i ? <span aria-hidden="true">+</span> : null}
                      <kbd>{k}</kbd>
                    </span>
                  ))}
                </dt>
                <dd>{s.does}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
