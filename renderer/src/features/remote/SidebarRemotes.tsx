import { useEffect, useState } from 'react';
import type { RecentRemoteFolder } from '#protocol';
import { Icon } from '../../components/Icon';
import { listRemoteHosts } from '../../actions/remote';
import { useRemoteDialog } from '../../stores/remote';
import { useSettings } from '../../stores/settings';
import './remote.css';

/** Remote folders the sidebar remembers (the newest few of ~/.deft/remote-recent.json). */
const SHOWN = 4;

/** A folder's last name, for the row (the whole `host:/path` is its title). */
function shortName(folder: RecentRemoteFolder): string {
  const name = folder.path.split('/').filter(Boolean).pop() ?? '/';
  return `${folder.host}: ${name}`;
}

/**
 * The remote folders opened before, each one click from being opened again (through the dialog: its host key and
 * passphrase are asked there as for any connect). The folder open now is marked, not offered.
 */
export function SidebarRemotes() {
  const open = useRemoteDialog((s) => s.open);
  const workspace = useSettings((s) => s.workspace);
  const [recent, setRecent] = useState<RecentRemoteFolder[]>([]);
  // Read when the sidebar shows and each time the dialog closes (it may have added one).
  useEffect(() => {
    if (open) return;
    let live = true;
    void listRemoteHosts().then((r) => live && r.ok && setRecent(r.value.recent));
    return () => {
      live = false;
    };
  }, [open]);
  if (!recent.length) return null;
  // The window's folder, if remote: known by its path there (the recent list names hosts as typed, aliases included).
  const herePath = workspace?.remote ? workspace.path : null;
  return (
    <section className="sidebar-remotes" aria-labelledby="sidebar-remotes-title">
      <h2 id="sidebar-remotes-title">Remote folders</h2>
      <ul>
        {recent.slice(0, SHOWN).map((folder) => {
          const current = folder.path === herePath;
          return (
            <li key={folder.label}>
              <button
                type="button"
                className="sidebar-remote"
                aria-current={current ? 'true' : undefined}
                title={current ? `${folder.label} (open now)` : `Open ${folder.label}`}
                disabled={current}
                onClick={() => useRemoteDialog.getState().show(true, { host: folder.host, path: folder.path })}
              >
                <span className="workspace-remote" aria-hidden="true">
                  <Icon name="server" />
                </span>
                <span className="sidebar-remote-name">{shortName(folder)}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
