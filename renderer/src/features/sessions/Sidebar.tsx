import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { newSession, pickWorkspace } from '../../actions/sessions';
import { useApprovals, waitingCount } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { useSettings } from '../../stores/settings';
import { useUi } from '../../stores/ui';
import { useRemoteDialog } from '../../stores/remote';
import { SidebarRemotes } from '../remote/SidebarRemotes';
import { useSkills } from '../../stores/skills';
import { useWorktrees } from '../../stores/worktrees';
import { ElsewhereRequests, WorktreeNotice, WorktreeSessions, WorktreeViewBar, useWorktreeRefresh } from '../worktrees/SidebarWorktrees';
import { SessionRow } from './SessionRow';
import { SessionSearchBox, SessionSearchResults } from './SessionSearch';
import { toggleSidebar } from '../layout/window-size';
import './sessions.css';

/** A folder, or a machine for a folder on another machine (its connection shows in the header). */
function WorkspaceMark({ remote }: { remote: boolean }) {
  return remote ? (
    <span className="workspace-remote" role="img" aria-label="Remote folder, over SSH">
      <Icon name="server" />
    </span>
  ) : (
    <Icon name="folder" />
  );
}

export function Sidebar() {
  const sessions = useSessions((s) => s.sessions);
  const currentId = useSessions((s) => s.currentId);
  const workspace = useSettings((s) => s.workspace);
  const provider = useSettings((s) => s.settings?.provider);
  const workspaceTitle = workspace?.remote ? `${workspace.remote.label}:${workspace.path}` : (workspace?.path ?? '');
  const [query, setQuery] = useState('');
  const waiting = useApprovals((s) => s.bySession);
  const worktrees = useWorktrees((s) => s.worktrees);
  const inRepository = useWorktrees((s) => s.repoRoot !== null);
  useWorktreeRefresh(sessions);
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
          <button type="button" className="workspace" title={`${workspaceTitle} — click to open another folder`} onClick={() => void pickWorkspace()}>
            <WorkspaceMark remote={Boolean(workspace.remote)} />
            <span className="workspace-name">{workspace.name}</span>
          </button>
        ) : (
          // Elsewhere the folder is fixed when the host starts: shown, not a control (no dead tab stop).
          <div className="workspace" title={workspaceTitle}>
            <WorkspaceMark remote={Boolean(workspace?.remote)} />
            <span className="workspace-name">{workspace?.name ?? '…'}</span>
          </div>
        )}
        {workspace?.host === 'electron' || workspace?.host === 'web' ? (
          <button
            type="button"
            className="button button-ghost button-skills"
            onClick={() => useRemoteDialog.getState().show(true)}
            title="Open a folder on another machine, over SSH"
          >
            <Icon name="server" /> Open remote folder…
          </button>
        ) : null}
        {workspace?.host === 'electron' || workspace?.host === 'web' ? <SidebarRemotes /> : null}
        <div className="new-session-row">
          <button type="button" className="button button-new" onClick={() => void newSession()} title="New session (Ctrl+N)">
            <Icon name="plus" /> New session
          </button>
          {inRepository ? (
            <button
              type="button"
              className="button button-new-worktree"
              aria-label="New session in a worktree"
              title="New session in a worktree: a branch and checkout of its own"
              onClick={() => useWorktrees.getState().show('new')}
            >
              <Icon name="fork" />
            </button>
          ) : null}
        </div>
        <button
          type="button"
          className="button button-ghost button-skills"
          onClick={() => useSkills.getState().show({ kind: 'gallery' })}
          title="Skill gallery (Ctrl+Shift+K)"
        >
          <Icon name="spark" /> Skills
        </button>
        {inRepository ? (
          <button
            type="button"
            className="button button-ghost button-skills"
            onClick={() => useWorktrees.getState().show('list')}
            title="Worktrees: merge, apply or discard"
          >
            <Icon name="fork" /> Worktrees{worktrees.length ? <span className="worktree-count"> · {worktrees.length}</span> : null}
          </button>
        ) : null}
      </div>
      <WorktreeViewBar />
      <ElsewhereRequests />
      <SessionSearchBox query={query} onQuery={setQuery} />
      {query.trim() ? (
        <SessionSearchResults query={query} onOpen={() => setQuery('')} />
      ) : (
        <ul className="session-list" aria-label="Sessions of this workspace">
          {sessions.length === 0 ? <li className="session-empty">No sessions yet. Send a message to start one.</li> : null}
          {sessions.map((s) => (
            <SessionRow key={s.id} session={s} current={s.id === currentId} waiting={waitingCount(waiting[s.id]) > 0} />
          ))}
          <WorktreeSessions />
        </ul>
      )}
      <WorktreeNotice />
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
