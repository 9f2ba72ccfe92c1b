import { useCallback, useEffect, useMemo, useState } from 'react';
import type { WorktreeChanges, WorktreeFileChange } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { Icon, Spinner } from '../../components/Icon';
import { refreshWorktrees, worktreeChanges } from '../../actions/worktrees';
import { useSessions } from '../../stores/sessions';
import { useWorktrees, worktreeNamed } from '../../stores/worktrees';
import { plural } from '../checkpoints/format';
import { HunkDiff } from '../checkpoints/HunkDiff';
import { useFileSteps } from '../checkpoints/use-file-steps';
import { DiffStats } from '../files/DiffView';
import { WorktreeActions } from './WorktreeActions';
import '../checkpoints/checkpoints.css';
import './worktrees.css';

const STATUS: Record<WorktreeFileChange['status'], { letter: string; label: string }> = {
  added: { letter: 'A', label: 'added' },
  deleted: { letter: 'D', label: 'deleted' },
  modified: { letter: 'M', label: 'modified' },
};

/** The diff of one file of the worktree. */
function FileDiff({ file }: { file: WorktreeFileChange }) {
  if (file.binary) return <p className="diff-empty-note">A binary file: no diff to show.</p>;
  if (!file.hunks.length) return <p className="diff-empty-note">{file.truncated ? 'Too large to show here.' : 'Only its mode changed, or it is empty.'}</p>;
  return <HunkDiff path={file.path} hunks={file.hunks} added={file.added} removed={file.removed} {...(file.truncated ? { truncated: true } : {})} />;
}

/**
 * A session's *Changes* view (issue 30): what its worktree changed against its base — committed or not, file by
 * file, J/K to move — and Merge (merge or squash, the message drafted by the model), Apply to working tree, Create
 * branch only, Discard, with a conflict's files and its two ways out, as in the Worktrees view. Opened from the
 * session's header in the worktree's own window, or from the main checkout's sidebar (the worktree's row): there it
 * also offers Open, and removing the worktree leaves this window where it is.
 */
export function ChangesView({ name, onClose }: { name: string; onClose: () => void }) {
  const worktree = useWorktrees((s) => worktreeNamed(s.worktrees, name));
  // This window is the worktree's own when its sessions are listed here (they run in their worktree's window).
  const here = useSessions((s) => s.sessions.some((x) => x.worktree?.name === name));
  const loaded = useWorktrees((s) => s.loaded);
  const [changes, setChanges] = useState<WorktreeChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [gone, setGone] = useState<string | null>(null);

  const files = useMemo(() => changes?.files ?? [], [changes]);
  const { selected, setSelected, file, list, keepOrFirst } = useFileSteps(files);
  const load = useCallback(async () => {
    const r = await worktreeChanges(name);
    if (!r.ok) return setError(r.error);
    setError(null);
    setChanges(r.value);
    keepOrFirst(r.value.files);
  }, [name, keepOrFirst]);
  useEffect(() => {
    void refreshWorktrees();
    void load();
  }, [load]);

  const totals = files.reduce((t, f) => ({ added: t.added + (f.added ?? 0), removed: t.removed + (f.removed ?? 0) }), { added: 0, removed: 0 });
  const title = worktree ? `Changes on ${worktree.branch}` : here ? 'Changes of this session' : `Changes of worktree ${name}`;
  return (
    <Dialog title={title} onClose={onClose} wide className="changes-view" initialFocus=".review-file[aria-current='true']">
      {gone ? (
        <p className="worktree-told" role="status">
          {gone}
          {here ? " This window stays on the worktree's folder: open the main checkout to go on." : ''}
        </p>
      ) : null}
      {worktree && !gone ? (
        <div className="changes-head">
          <p className="worktree-facts">
            {here ? 'This session works' : `${worktree.sessions[0] ? `“${worktree.sessions[0].title}”` : 'This worktree'} works`} on{' '}
            <span className="branch-chip">{worktree.branch}</span>, from {worktree.baseBranch ?? worktree.baseCommit.slice(0, 10)}: nothing reaches{' '}
            {worktree.baseBranch ?? 'the main checkout'} until you merge or apply it.
            {worktree.behind ? ` ${worktree.baseBranch ?? 'Its base'} has ${plural(worktree.behind, 'commit')} it does not.` : ''}
          </p>
          <WorktreeActions
            worktree={worktree}
            open={!here}
            onGone={setGone}
            onDone={() => void load()}
            shown={changes ? { head: changes.head, tree: changes.tree } : undefined}
          />
        </div>
      ) : null}
      {!worktree && loaded && !gone ? <p className="worktree-hint">The worktree {name} is not listed any more: it was merged away or discarded.</p> : null}
      {gone ? null : error ? (
        <p className="rewind-error" role="alert">
          {error}
        </p>
      ) : !changes ? (
        <p role="status">
          <Spinner size={12} /> Comparing with the base…
        </p>
      ) : !files.length ? (
        <p className="empty-note">No changes against the base: nothing to merge.</p>
      ) : (
        <div className="review-pane changes-pane">
          <nav className="review-list" aria-label="Changed files">
            <p className="file-meta">
              {plural(files.length + changes.more, 'file')} <DiffStats {...totals} /> · J/K next/previous
            </p>
            <ul ref={list}>
              {files.map((f) => (
                <li key={f.path}>
                  <button type="button" className="review-file" data-path={f.path} aria-current={f.path === selected} onClick={() => setSelected(f.path)}>
                    <span className={`review-status review-status-${f.status}`} aria-label={STATUS[f.status].label}>
                      {STATUS[f.status].letter}
                    </span>
                    <span className="file-path">{f.path}</span>
                    {f.binary ? <span className="file-meta">binary</span> : <DiffStats added={f.added ?? 0} removed={f.removed ?? 0} />}
                  </button>
                </li>
              ))}
            </ul>
            {changes.more ? <p className="file-meta">and {changes.more} more not listed</p> : null}
          </nav>
          {file ? (
            <section className="review-detail" aria-label={`Changes to ${file.path}`}>
              <header className="review-detail-header">
                <h3 className="file-path">{file.path}</h3>
                <span className="file-meta">{STATUS[file.status].label}</span>
              </header>
              <FileDiff file={file} />
            </section>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}

/** The session header's way to its worktree's Changes view: shown when the current session runs in a worktree. */
export function ChangesButton() {
  const worktree = useSessions((s) => s.sessions.find((x) => x.id === s.currentId)?.worktree);
  const count = useWorktrees((s) => (worktree ? worktreeNamed(s.worktrees, worktree.name)?.changedFiles.length : undefined));
  const open = useWorktrees((s) => s.changesOf !== null);
  if (!worktree) return null;
  const label = `Changes on ${worktree.branch}${count !== undefined ? ` (${plural(count, 'file')})` : ''}`;
  return (
    <button
      type="button"
      className="tasks-toggle changes-toggle"
      aria-label={label}
      aria-haspopup="dialog"
      aria-expanded={open}
      title={`${label}: diff against ${worktree.baseBranch ?? 'its base'}, merge, apply or discard`}
      onClick={() => useWorktrees.getState().showChanges(worktree.name)}
    >
      <Icon name="fork" size={15} />
      <span>Changes</span>
      {count ? (
        <span className="tasks-badge" aria-hidden="true">
          {count}
        </span>
      ) : null}
    </button>
  );
}
