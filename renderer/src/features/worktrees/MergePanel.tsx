import { useEffect, useRef, useState } from 'react';
import type { WorktreeInfo } from '#protocol';
import { draftWorktreeMessage } from '../../actions/worktrees';
import { draftMergeMessage } from '../../stores/worktrees';

/**
 * Merge or squash onto the base branch, with a commit message the model drafts from the worktree's diff (the default
 * one until it answers, or when it cannot — said under the box). The message stays editable; once edited, a late
 * draft does not replace it.
 */
export function MergePanel({ worktree, busy, onMerge }: { worktree: WorktreeInfo; busy: boolean; onMerge: (squash: boolean, message: string) => void }) {
  const [squash, setSquash] = useState(false);
  const [message, setMessage] = useState(() => draftMergeMessage(worktree));
  const [drafting, setDrafting] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const edited = useRef(false);
  const draft = async (squashed: boolean) => {
    setDrafting(true);
    setNote(null);
    const r = await draftWorktreeMessage(worktree.name, squashed);
    setDrafting(false);
    if (!r.ok) return setNote(`The model could not draft a message (${r.error}): the default message is filled in.`);
    if (edited.current) return setNote(r.value.drafted ? 'The model’s draft came after you edited the message: yours is kept.' : (r.value.note ?? null));
    setMessage(r.value.message);
    setNote(r.value.drafted ? 'Drafted by the model from the diff against the base: check it, edit it if needed.' : (r.value.note ?? null));
  };
  useEffect(() => {
    void draft(false);
    // Drafted once when the panel opens; "Draft again" asks anew.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <form
      className="worktree-panel"
      aria-label={`Merge ${worktree.branch}`}
      onSubmit={(e) => {
        e.preventDefault();
        onMerge(squash, message);
      }}
    >
      <fieldset className="worktree-how">
        <legend>Onto {worktree.baseBranch}</legend>
        <label>
          <input type="radio" name={`${worktree.name}-how`} checked={!squash} onChange={() => setSquash(false)} /> Merge commit
        </label>
        <label>
          <input type="radio" name={`${worktree.name}-how`} checked={squash} onChange={() => setSquash(true)} /> Squash into one commit
        </label>
      </fieldset>
      <label className="worktree-message">
        Commit message
        <textarea
          value={message}
          rows={4}
          maxLength={10_000}
          aria-busy={drafting}
          onChange={(e) => {
            edited.current = true;
            setMessage(e.target.value);
          }}
        />
      </label>
      <p className="worktree-draft-note" aria-live="polite">
        {drafting ? 'The model is drafting a message from the diff…' : note}
      </p>
      <div className="worktree-actions">
        <button type="submit" className="button button-primary" disabled={busy || !message.trim()}>
          {busy ? 'Merging…' : squash ? 'Squash and merge' : 'Merge'}
        </button>
        <button
          type="button"
          className="button"
          disabled={busy || drafting}
          onClick={() => {
            edited.current = false;
            void draft(squash);
          }}
        >
          Draft again
        </button>
      </div>
    </form>
  );
}
