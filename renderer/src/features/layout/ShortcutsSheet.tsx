import { Dialog } from '../../components/Dialog';
import { useUi } from '../../stores/ui';
import { SHORTCUT_GROUPS } from './shortcuts';

/** Every shortcut on one sheet (Ctrl+/). */
export function ShortcutsSheet() {
  const close = () => useUi.getState().setShortcutsOpen(false);
  return (
    <Dialog title="Keyboard shortcuts" onClose={close}>
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
    </Dialog>
  );
}
