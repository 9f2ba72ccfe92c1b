import { useEffect, useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { refreshWorktrees } from '../../actions/worktrees';
import { useWorktrees } from '../../stores/worktrees';
import { ChangesView } from './ChangesView';
import { NewWorktreeDialog } from './NewWorktreeDialog';
import { WorktreeCard } from './WorktreeCard';
import './worktrees.css';

/** The repository's worktrees (listWorktrees) with their state, and Merge / Apply / Discard for each. */
export function WorktreesView({ onClose, onNew }: { onClose: () => void; onNew: () => void }) {
  const { worktrees, repoRoot, reason, loaded } = useWorktrees();
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    void refreshWorktrees();
  }, []);
  return (
    <Dialog
      title="Worktrees"
      onClose={onClose}
      wide
      className="worktrees-view"
      footer={
        <button type="button" className="button" onClick={onNew} disabled={loaded && !repoRoot}>
          New session in a worktree…
        </button>
      }
    >
      {repoRoot ? (
        <p className="worktree-hint">Sessions on branches of their own, outside {repoRoot}. Nothing comes back here until you merge or apply it.</p>
      ) : null}
      {said ? (
        <p className="worktree-told" role="status">
          {said}
        </p>
      ) : null}
      {!loaded ? <p className="worktree-hint">Loading…</p> : null}
      {loaded && !repoRoot ? <p className="worktree-hint">No worktrees here: {reason ?? 'this folder is not in a git repository.'}</p> : null}
      {loaded && repoRoot && worktrees.length === 0 ? (
        <p className="worktree-hint">No worktrees yet. Start a session in one to work on a branch of its own.</p>
      ) : null}
      {worktrees.length ? (
        <ul className="card-list worktree-list" aria-label="Worktrees of this repository">
          {worktrees.map((w) => (
            <WorktreeCard key={w.name} worktree={w} onGone={setSaid} />
          ))}
        </ul>
      ) : null}
    </Dialog>
  );
}

/** Whichever worktree window is open (a session's Changes view first). */
export function WorktreesLayer() {
  const dialog = useWorktrees((s) => s.dialog);
  const changesOf = useWorktrees((s) => s.changesOf);
  const show = (next: typeof dialog) => useWorktrees.getState().show(next);
  if (changesOf) return <ChangesView name={changesOf} onClose={() => useWorktrees.getState().showChanges(null)} />;
  if (dialog === 'list') return <WorktreesView onClose={() => show(null)} onNew={() => show('new')} />;
  if (dialog === 'new') return <NewWorktreeDialog onClose={() => show(null)} />;
  return null;
}
