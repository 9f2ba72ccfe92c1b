import { useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { createWorktreeSession, switchToWorktree } from '../../actions/worktrees';
import { useSettings } from '../../stores/settings';

type Created = Extract<Awaited<ReturnType<typeof createWorktreeSession>>, { ok: true }>['value'];

/** What was made: the branch and folder, the files copied in or not, and where its sessions run. */
function CreatedReport({ created, workspace }: { created: Created; workspace: string }) {
  const { worktree, copied, skipped, notes, opened, here } = created;
  return (
    <div className="worktree-created" role="status">
      <p>
        Created <span className="branch-chip">{worktree.branch}</span> from {worktree.baseBranch ?? worktree.baseCommit.slice(0, 10)}.
      </p>
      {here ? (
        <p>
          Its sessions run in a core of their own, beside this folder&apos;s: switch this window to it, and back with <em>← Main checkout</em> at the top of the
          sidebar — what runs on either side keeps running. It is a new folder for trust: its own settings and hooks apply once you trust it there.
        </p>
      ) : opened ? (
        <p>It opened in a window of its own: sessions there run in the worktree. Trust the folder there before its own settings and hooks apply.</p>
      ) : (
        <p>
          This window stays on {workspace}. Run sessions in the worktree from a window opened on its folder (the desktop app, or{' '}
          <code>npm run web -- --workspace</code> with the folder), or with <code>deft run</code> there:
          <code className="worktree-path">{worktree.path}</code>
        </p>
      )}
      {copied.length ? <p>Copied in: {copied.join(', ')}</p> : null}
      {skipped.length ? (
        <div>
          <p>Not copied:</p>
          <ul className="worktree-files">
            {skipped.map((s) => (
              <li key={s.path}>
                {s.path} — {s.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {notes.map((note) => (
        <p key={note} className="worktree-note">
          Note: {note}
        </p>
      ))}
    </div>
  );
}

/** New session → in a new worktree: an optional name and base; the core makes the worktree and opens it. */
export function NewWorktreeDialog({ onClose }: { onClose: () => void }) {
  const workspace = useSettings((s) => s.workspace?.name ?? 'this folder');
  const [name, setName] = useState('');
  const [base, setBase] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const create = async () => {
    setBusy(true);
    setFailure(null);
    const result = await createWorktreeSession({ name: name.trim(), base: base.trim() });
    setBusy(false);
    if (result.ok) setCreated(result.value);
    else setFailure(result.error);
  };
  return (
    <Dialog
      title="New session in a worktree"
      onClose={onClose}
      className="worktree-dialog"
      initialFocus="#new-worktree input"
      footer={
        created?.here ? (
          <>
            <button type="button" className="button" onClick={onClose}>
              Stay here
            </button>
            <button type="button" className="button button-primary" onClick={() => switchToWorktree(created.worktree.name)}>
              Switch to {created.worktree.branch}
            </button>
          </>
        ) : created ? (
          <button type="button" className="button button-primary" onClick={onClose}>
            Done
          </button>
        ) : (
          <>
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" form="new-worktree" className="button button-primary" disabled={busy}>
              {busy ? 'Creating…' : 'Create worktree'}
            </button>
          </>
        )
      }
    >
      {created ? (
        <CreatedReport created={created} workspace={workspace} />
      ) : (
        <form
          id="new-worktree"
          className="worktree-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (!busy) void create();
          }}
        >
          <p className="worktree-hint">
            A checkout of its own on a new branch, outside this folder: its sessions change nothing here until you merge or apply them.
          </p>
          <label>
            Name <span className="worktree-optional">(optional; the branch is deft/name)</span>
            <input value={name} maxLength={64} placeholder="login-fix" autoComplete="off" spellCheck={false} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Start from <span className="worktree-optional">(optional branch, tag or commit; default: the current HEAD)</span>
            <input value={base} maxLength={200} placeholder="HEAD" autoComplete="off" spellCheck={false} onChange={(e) => setBase(e.target.value)} />
          </label>
          {failure ? (
            <p className="worktree-error" role="alert">
              {failure}
            </p>
          ) : null}
        </form>
      )}
    </Dialog>
  );
}
