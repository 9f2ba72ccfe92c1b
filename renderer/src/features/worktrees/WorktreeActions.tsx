import { useState } from 'react';
import type { WorktreeInfo } from '#protocol';
import { applyWorktree, discardWorktree, handWorktreeConflict, keepWorktreeBranch, mergeWorktree, openWorktree } from '../../actions/worktrees';
import { MergePanel } from './MergePanel';
import { type Told, applyText, mergeText } from './outcome-text';

type Panel = 'merge' | 'branch' | 'discard' | null;

export function FileList({ files }: { files: readonly string[] }) {
  return (
    <ul className="worktree-files">
      {files.map((f) => (
        <li key={f}>{f}</li>
      ))}
    </ul>
  );
}

/** What an action did: a sentence, and the files it names. */
function ToldBox({ told }: { told: Told }) {
  return (
    <div className={`worktree-told${told.ok ? '' : ' worktree-told-refused'}`} role={told.ok ? 'status' : 'alert'}>
      <p>{told.text}</p>
      {told.files.length ? <FileList files={told.files} /> : null}
      {told.prompt ? (
        <label className="worktree-message">
          Prompt for the session
          <textarea readOnly value={told.prompt} rows={6} />
        </label>
      ) : null}
      {told.goTo ? (
        <button type="button" className="button" onClick={() => void openWorktree(told.goTo!.name, told.goTo!.sessionId)}>
          Switch to {told.goTo.branch} →
        </button>
      ) : null}
    </div>
  );
}

/** A button of the card: it runs its work at once, or opens (and closes) its panel. */
interface CardAction {
  label: string;
  disabled: boolean;
  title?: string | undefined;
  panel?: Exclude<Panel, null>;
  work?: () => Promise<Told | null>;
}

/**
 * What can be done with a worktree — Open, Merge…, Apply to working tree, Create branch only…, Discard… — with what
 * each did, and a conflict's two ways out (resolve in that session, or by hand). The Worktrees view's cards and a
 * session's Changes view show it alike. `onDone`: something was done (the diff may have changed).
 */
export function WorktreeActions({
  worktree,
  onGone,
  onDone,
  open = true,
  shown,
}: {
  worktree: WorktreeInfo;
  onGone: (said: string) => void;
  onDone?: () => void;
  /** The diff shown (the Changes view's head and tree): Merge merges exactly that, or is refused when it moved. */
  shown?: { head: string; tree: string } | undefined;
  /** Offer Open (not in the worktree's own window). */
  open?: boolean;
}) {
  const [panel, setPanel] = useState<Panel>(null);
  const [branchMessage, setBranchMessage] = useState(`Deft worktree ${worktree.name}: the session's changes`);
  const [deleteBranch, setDeleteBranch] = useState(false);
  const [busy, setBusy] = useState(false);
  const [told, setTold] = useState<Told | null>(null);
  const run = async (work: () => Promise<Told | null>) => {
    setBusy(true);
    setTold(await work());
    setBusy(false);
    onDone?.();
  };
  const refused = (error: string): Told => ({ ok: false, text: error, files: [] });
  const missing = worktree.state === 'missing';
  const all: CardAction[] = [
    {
      label: 'Open',
      disabled: missing,
      work: async () => {
        const r = await openWorktree(worktree.name);
        if (!r.ok) return refused(r.error);
        return r.value.opened || r.value.here
          ? null
          : { ok: true, text: `This window cannot open another folder: open ${r.value.path} in the desktop app, or run deft there.`, files: [] };
      },
    },
    {
      label: 'Merge…',
      disabled: !worktree.baseBranch,
      title: worktree.baseBranch ? undefined : 'Made from a commit: it can only be applied.',
      panel: 'merge',
    },
    {
      label: 'Apply to working tree',
      disabled: missing,
      work: async () => {
        const r = await applyWorktree(worktree.name);
        return r.ok ? applyText(r.value) : refused(r.error);
      },
    },
    { label: 'Create branch only…', disabled: missing, title: 'Keep the branch, remove the worktree', panel: 'branch' },
    { label: 'Discard…', disabled: false, panel: 'discard' },
  ];
  const actions = open ? all : all.slice(1);
  return (
    <>
      <div className="worktree-actions">
        {actions.map((action) => (
          <button
            key={action.label}
            type="button"
            className="button"
            aria-expanded={action.panel ? panel === action.panel : undefined}
            disabled={busy || action.disabled}
            title={action.title}
            onClick={() => (action.panel ? setPanel(panel === action.panel ? null : action.panel) : action.work && void run(action.work))}
          >
            {action.label}
          </button>
        ))}
      </div>
      {panel === 'merge' ? (
        <MergePanel
          worktree={worktree}
          busy={busy}
          onMerge={(squash, message) =>
            void run(async () => {
              const r = await mergeWorktree(worktree.name, squash, message, shown);
              if (r.ok && r.value.status === 'merged') setPanel(null);
              return r.ok ? mergeText(worktree.branch, r.value) : refused(r.error);
            })
          }
        />
      ) : null}
      {panel === 'branch' ? (
        <form
          className="worktree-panel"
          aria-label={`Create branch only from ${worktree.branch}`}
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              const r = await keepWorktreeBranch(worktree.name, branchMessage);
              if (!r.ok) return refused(r.error);
              onGone(
                `${r.value.committed ? 'Committed its uncommitted changes on' : 'Kept'} the branch ${r.value.branch} and removed the worktree: the branch is yours (git switch ${r.value.branch}).`,
              );
              return null;
            });
          }}
        >
          <p>
            Keeps the branch {worktree.branch} and removes the worktree's folder
            {worktree.dirty ? '; its uncommitted changes are committed on the branch first' : ''}. Nothing is merged.
          </p>
          {worktree.dirty ? (
            <label className="worktree-message">
              Commit message
              <textarea value={branchMessage} rows={2} maxLength={10_000} onChange={(e) => setBranchMessage(e.target.value)} />
            </label>
          ) : null}
          <button type="submit" className="button button-primary" disabled={busy}>
            Keep the branch, remove the worktree
          </button>
        </form>
      ) : null}
      {panel === 'discard' ? (
        <div className="worktree-panel" role="group" aria-label={`Discard ${worktree.branch}`}>
          <p>
            Removes the worktree's folder{worktree.dirty ? ' and its uncommitted changes' : ''}.{' '}
            {worktree.sessions.length ? 'Its sessions stay listed in their folder until deleted.' : ''}
          </p>
          <label>
            <input type="checkbox" checked={deleteBranch} onChange={(e) => setDeleteBranch(e.target.checked)} /> Also delete the branch {worktree.branch}
          </label>
          <button
            type="button"
            className="button button-stop"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                const r = await discardWorktree(worktree.name, deleteBranch);
                if (!r.ok) return refused(r.error);
                onGone(`Discarded ${worktree.branch}${r.value.branchDeleted ? ' and deleted its branch' : '; its branch is kept'}.`);
                return null;
              })
            }
          >
            Discard worktree
          </button>
        </div>
      ) : null}
      {told ? <ToldBox told={told} /> : null}
      {told?.conflict && worktree.baseBranch ? (
        <div className="worktree-actions" role="group" aria-label="Resolve the conflict">
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                const r = await handWorktreeConflict(worktree.name);
                if (!r.ok) return refused(r.error);
                // The web host shows the worktree's core in this window: one click there (its session opened).
                const goTo =
                  r.value.here && !r.value.opened
                    ? { goTo: { name: worktree.name, branch: r.value.branch, ...(r.value.sent ? { sessionId: r.value.sent.sessionId } : {}) } }
                    : {};
                const where = r.value.opened
                  ? 'Its window is open'
                  : r.value.here
                    ? `Switch to ${r.value.branch} (its row under In worktrees)`
                    : `Open ${r.value.path} in the desktop app (or run deft there)`;
                return r.value.status === 'clean'
                  ? { ok: true, text: `${r.value.baseBranch} merged into ${r.value.branch} without a conflict: merge again.`, files: [] }
                  : r.value.sent
                    ? {
                        ok: true,
                        text: `${r.value.baseBranch} is merged into ${r.value.branch} in the worktree only: the conflict markers are there, the main checkout is untouched. Sent to its session “${r.value.sent.title}”${r.value.sent.created ? ' (new)' : ''}: ${r.value.opened ? 'its window starts it, or queues it behind a running turn' : r.value.here ? `it starts when you switch to ${r.value.branch} (the button below, or its row under In worktrees), or headless with deft worktrees resolve ${worktree.name}` : `it starts when that worktree is open in Deft (${r.value.path}), or headless with deft worktrees resolve ${worktree.name}`}. Then Merge again.`,
                        files: r.value.files,
                        ...goTo,
                      }
                    : {
                        ok: true,
                        text: `${r.value.baseBranch} is merged into ${r.value.branch} in the worktree only: the conflict markers are there, the main checkout is untouched. ${where}, and give its session this prompt:`,
                        files: r.value.files,
                        prompt: r.value.prompt,
                        ...goTo,
                      };
              })
            }
          >
            Resolve in that session
          </button>
          <button
            type="button"
            className="button"
            disabled={busy}
            onClick={() =>
              setTold({
                ok: true,
                text: `By hand: in the worktree at ${worktree.path}, run git merge ${worktree.baseBranch}, resolve the files, commit, then Merge again. Nothing was changed.`,
                files: told.files,
              })
            }
          >
            By hand
          </button>
        </div>
      ) : null}
    </>
  );
}
