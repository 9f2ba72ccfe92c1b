import { useEffect, useRef, useState } from 'react';
import type { SessionSummary } from '#protocol';
import { Spinner } from '../../components/Icon';
import { deleteSession, exportSession, forkWholeSession, openSession, renameSession } from '../../actions/sessions';
import { WorktreeChip } from '../worktrees/SidebarWorktrees';
import { SessionMenu } from './SessionMenu';
import { relativeTime } from './relative-time';

/** The title being edited in place: Enter saves, Escape (or leaving the field) keeps the old title. */
function RenameField({ session, onDone }: { session: SessionSummary; onDone: () => void }) {
  const [title, setTitle] = useState(session.title);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  const save = async () => {
    const clean = title.trim();
    if (clean && clean !== session.title) await renameSession(session.id, clean);
    onDone();
  };
  return (
    <input
      ref={field}
      className="session-rename"
      aria-label={`New title for ${session.title}`}
      value={title}
      maxLength={200}
      onChange={(e) => setTitle(e.target.value)}
      onBlur={onDone}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          void save();
        } else if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onDone();
        }
      }}
    />
  );
}

/** One session in the sidebar: its title (two lines when long, the whole title on hover), when it changed, and its actions. */
export function SessionRow({ session, current, waiting }: { session: SessionSummary; current: boolean; waiting: boolean }) {
  const [renaming, setRenaming] = useState(false);
  const actionsRef = useRef<HTMLDivElement>(null);
  return (
    <li
      className={`session-row${current ? ' session-current' : ''}`}
      onContextMenu={(e) => {
        // A right-click opens the row's own actions menu (Rename, Fork, Export, Delete), as the ⋯ button does.
        const button = actionsRef.current?.querySelector<HTMLButtonElement>('button[aria-haspopup="menu"]');
        if (renaming || !button) return;
        e.preventDefault();
        if (button.getAttribute('aria-expanded') !== 'true') button.click();
      }}
    >
      {renaming ? (
        <RenameField
          session={session}
          onDone={() => {
            setRenaming(false);
            actionsRef.current?.querySelector('button')?.focus();
          }}
        />
      ) : (
        <button
          type="button"
          className="session-open"
          title={session.title}
          aria-current={current ? 'true' : undefined}
          onClick={() => void openSession(session.id)}
        >
          <span className="session-title">{session.title}</span>
          {session.forkedFrom ? (
            <span className="session-forked" title={`Forked from "${session.forkedFrom.title}" after prompt ${session.forkedFrom.atPrompt}`}>
              forked from {session.forkedFrom.title} · prompt {session.forkedFrom.atPrompt}
            </span>
          ) : null}
          {session.worktree ? <WorktreeChip worktree={session.worktree} /> : null}
          <span className="session-meta">
            {session.running ? <Spinner size={10} /> : null}
            {relativeTime(session.updatedAt)}
            {waiting ? <span className="session-waiting">· waiting for you</span> : null}
          </span>
        </button>
      )}
      <div className="session-row-actions" ref={actionsRef}>
        <SessionMenu
          label={session.title}
          actions={[
            { label: 'Rename', run: () => setRenaming(true) },
            { label: 'Fork', run: () => void forkWholeSession(session.id) },
            { label: 'Export as Markdown', run: () => void exportSession(session.id, 'markdown') },
            { label: 'Export raw log (JSONL)', run: () => void exportSession(session.id, 'jsonl') },
            { label: 'Delete', run: () => void deleteSession(session.id), confirm: true, danger: true },
          ]}
        />
      </div>
    </li>
  );
}
