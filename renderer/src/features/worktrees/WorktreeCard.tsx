import { useId } from 'react';
import type { WorktreeInfo } from '#protocol';
import { useWorktrees } from '../../stores/worktrees';
import { FileList, WorktreeActions } from './WorktreeActions';

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** One worktree: its branch and state, its sessions, and Merge / Apply / Discard with what each did. */
export function WorktreeCard({ worktree, onGone }: { worktree: WorktreeInfo; onGone: (said: string) => void }) {
  const id = useId();
  const missing = worktree.state === 'missing';
  const changed = worktree.changedFiles.length;
  return (
    <li className="list-card" aria-labelledby={`${id}-branch`}>
      <div className="list-card-head">
        <span id={`${id}-branch`} className="branch-chip">
          {worktree.branch}
        </span>
        <span className="worktree-base">from {worktree.baseBranch ?? worktree.baseCommit.slice(0, 10)}</span>
      </div>
      <p className="worktree-facts">
        {missing ? 'Its folder is gone' : count(changed, 'changed file')}
        {worktree.ahead ? ` · ${worktree.ahead} ahead` : ''}
        {worktree.behind ? ` · ${worktree.behind} behind` : ''}
        {worktree.dirty ? ' · uncommitted changes' : ''}
        {worktree.sessions.length ? ` · ${count(worktree.sessions.length, 'session')}: ${worktree.sessions.map((s) => s.title).join(', ')}` : ''}
      </p>
      {changed ? (
        <div className="worktree-changed-row">
          <details className="worktree-changed">
            <summary>Changed files</summary>
            <FileList files={worktree.changedFiles} />
          </details>
          <button
            type="button"
            className="worktree-show-diff"
            aria-haspopup="dialog"
            aria-label={`Show the changes on ${worktree.branch}`}
            onClick={() => useWorktrees.getState().showChanges(worktree.name)}
          >
            Show the diff
          </button>
        </div>
      ) : null}
      <WorktreeActions worktree={worktree} onGone={onGone} />
    </li>
  );
}
