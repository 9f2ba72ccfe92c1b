import { SHORTCUTS, modKey } from '../../../components/shortcuts';

/** Every keyboard shortcut, by where it works. */
export function ShortcutsPage() {
  const mod = modKey();
  return (
    <div className="settings-form">
      {SHORTCUTS.map((group) => (
        <table key={group.group} className="shortcut-table">
          <caption>{group.group}</caption>
          <thead className="visually-hidden">
            <tr>
              <th scope="col">Keys</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {group.items.map((s) => (
              <tr key={s.keys.join('+') + s.action}>
                <td className="shortcut-keys">
                  {s.keys.map((k, i) => (
                    <span key={i}>
                      {i > 0 ? <span aria-hidden="true">+</span> : null}
                      <kbd>{k === 'Mod' ? mod : k}</kbd>
                    </span>
                  ))}
                </td>
                <td>{s.action}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}
