import { useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { deleteSession, newSession, openSession, pickWorkspace } from '../../actions/sessions';
import { useApprovals, waitingCount } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { useSkills } from '../../stores/skills';
import { toggleSidebar } from '../layout/window-size';
import { relativeTime } from './relative-time';

export function Sidebar() {
  const sessions = useSessions((s) => s.sessions);
  const currentId = useSessions((s) => s.currentId);
  const workspace = useSettings((s) => s.workspace);
  const provider = useSettings((s) => s.settings?.provider);
  const [confirming, setConfirming] = useState<string | null>(null);
  const waiting = useApprovals((s) => s.bySession);
  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="sidebar-top">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          Deft
          <button type="button" className="icon-button sidebar-hide" aria-label="Hide sidebar" title="Hide sidebar (Ctrl+B)" onClick={toggleSidebar}>
            <Icon name="sidebar" size={16} />
          </button>
        </div>
        {workspace?.host === 'electron' ? (
          <button type="button" className="workspace" title={`${workspace.path} — click to open another folder`} onClick={() => void pickWorkspace()}>
            <Icon name="folder" />
            <span className="workspace-name">{workspace.name}</span>
          </button>
        ) : (
          // Elsewhere the folder is fixed when the host starts: shown, not a control (no dead tab stop).
          <div className="workspace" title={workspace?.path}>
            <Icon name="folder" />
            <span className="workspace-name">{workspace?.name ?? '…'}</span>
          </div>
        )}
        <button type="button" className="button button-new" onClick={() => void newSession()} title="New session (Ctrl+N)">
          <Icon name="plus" /> New session
        </button>
        <button type="button" className="button button-ghost button-skills" onClick={() => useSkills.getState().show({ kind: 'gallery' })} title="Skill gallery (Ctrl+Shift+K)">
          <Icon name="spark" /> Skills
        </button>
      </div>
      <ul className="session-list">
        {sessions.length === 0 ? <li className="session-empty">No sessions yet. Send a message to start one.</li> : null}
        {sessions.map((s) => (
          <li key={s.id} className={`session-row${s.id === currentId ? ' session-current' : ''}`}>
            <button type="button" className="session-open" aria-current={s.id === currentId ? 'true' : undefined} onClick={() => void openSession(s.id)}>
              <span className="session-title">{s.title}</span>
              <span className="session-meta">
                {s.running ? <Spinner size={10} /> : null}
                {relativeTime(s.updatedAt)}
                {waitingCount(waiting[s.id]) ? <span className="session-waiting">· waiting for you</span> : null}
              </span>
            </button>
            <button
              type="button"
              className={`icon-button session-delete${confirming === s.id ? ' confirming' : ''}`}
              aria-label={confirming === s.id ? `Confirm delete ${s.title}` : `Delete ${s.title}`}
              title={confirming === s.id ? 'Click again to delete' : 'Delete session'}
              onBlur={() => setConfirming(null)}
              onClick={() => {
                if (confirming === s.id) {
                  setConfirming(null);
                  void deleteSession(s.id);
                } else setConfirming(s.id);
              }}
            >
              <Icon name={confirming === s.id ? 'check' : 'trash'} size={14} />
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-bottom">
        <button type="button" className="button button-ghost" onClick={() => useUi.getState().openSettings(true)} title="Settings (Ctrl+,)">
          <Icon name="settings" /> Settings
        </button>
        <span className="model-chip" title={provider ? `${provider.model} at ${provider.baseUrl}` : undefined}>
          {provider?.model ?? 'no model'}
        </span>
      </div>
    </nav>
  );
}
