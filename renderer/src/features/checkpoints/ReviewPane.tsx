import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ReviewChanges, ReviewFile } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { Icon, Spinner } from '../../components/Icon';
import { openInEditor, revertChange, reviewChanges, undoRevert } from '../../actions/checkpoints';
import { useSettings } from '../../stores/settings';
import { useTranscript } from '../../stores/transcript';
import { DiffStats } from '../files/DiffView';
import { plural } from './format';
import { HunkDiff } from './HunkDiff';
import { useFileSteps } from './use-file-steps';

const STATUS_LABEL: Record<ReviewFile['status'], string> = { added: 'added', deleted: 'deleted', modified: 'modified' };

type Done = { text: string; revertId: string } | { text: string; error: true };

/**
 * The review pane: every file a turn (or the whole session) changed, with its diff from the checkpoints —
 * shell commands' changes included. J and K move between files; a file or a hunk can be reverted to how it
 * was before, and each revert undone.
 */
export function ReviewPane({ turnId, path, onClose }: { turnId?: string; path?: string; onClose: () => void }) {
  const [changes, setChanges] = useState<ReviewChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Done | null>(null);
  const running = useTranscript((s) => s.runningTurn !== null);
  const desktop = useSettings((s) => s.workspace?.host === 'electron');

  const files = useMemo(() => changes?.files ?? [], [changes]);
  const { selected, setSelected, file, list, keepOrFirst } = useFileSteps(files, path ?? null);
  const load = useCallback(async () => {
    const r = await reviewChanges(turnId);
    if (!r.ok) return setError(r.error);
    setError(null);
    setChanges(r.value);
    keepOrFirst(r.value.files);
  }, [turnId, keepOrFirst]);
  useEffect(() => void load(), [load]);

  const revert = async (target: ReviewFile, hunk?: number) => {
    setBusy(true);
    const r = await revertChange(turnId, target.path, hunk);
    setBusy(false);
    const what = hunk === undefined ? target.path : `hunk ${hunk + 1} of ${target.path}`;
    setDone(r.ok ? { text: `Reverted ${what}.`, revertId: r.value.revertId } : { text: r.error, error: true });
    await load();
  };
  const undo = async (revertId: string) => {
    setBusy(true);
    const r = await undoRevert(revertId);
    setBusy(false);
    setDone(r.ok ? null : { text: r.error, error: true });
    await load();
  };

  const title = turnId ? 'Review the changes of this turn' : 'Review the changes of this session';
  return (
    <Dialog title={title} onClose={onClose} wide initialFocus=".review-file[aria-current='true']">
      {/* Above the list: a file whose changes were all reverted leaves it, and its Undo stays here. */}
      {done ? (
        <p className={'error' in done ? 'rewind-error' : 'review-done'} role="status">
          {done.text}{' '}
          {'revertId' in done ? (
            <button type="button" className="link-button" disabled={busy} onClick={() => void undo(done.revertId)}>
              Undo
            </button>
          ) : null}
        </p>
      ) : null}
      {error ? (
        <p className="rewind-error" role="alert">
          {error}
        </p>
      ) : !changes ? (
        <p role="status">
          <Spinner size={12} /> Comparing checkpoints…
        </p>
      ) : !files.length ? (
        <p className="empty-note">{turnId ? 'This turn changed no file (or its changes were reverted).' : 'No file has changed in this session.'}</p>
      ) : (
        <div className="review-pane">
          <nav className="review-list" aria-label="Changed files">
            <p className="file-meta">{plural(files.length + changes.more, 'file')} · J/K next/previous</p>
            <ul ref={list}>
              {files.map((f) => (
                <li key={f.path}>
                  <button type="button" className="review-file" data-path={f.path} aria-current={f.path === selected} onClick={() => setSelected(f.path)}>
                    <span className={`review-status review-status-${f.status}`} aria-label={STATUS_LABEL[f.status]}>
                      {f.status === 'added' ? 'A' : f.status === 'deleted' ? 'D' : 'M'}
                    </span>
                    <span className="file-path">{f.path}</span>
                    {f.otherSession ? <span className="rewind-outside">another session</span> : null}
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
                <span className="file-meta">{STATUS_LABEL[file.status]}</span>
                <span className="diff-spacer" />
                {desktop && file.status !== 'deleted' ? (
                  <button type="button" className="button button-ghost" onClick={() => void openInEditor(file.path)}>
                    Open in editor
                  </button>
                ) : null}
                {file.otherSession ? null : (
                  <button
                    type="button"
                    className="button"
                    disabled={busy || running}
                    onClick={() => void revert(file)}
                    title={file.changedSince ? 'Changed again later: reverting restores the earlier version over those changes too' : undefined}
                  >
                    <Icon name="undo" size={13} /> Revert file
                  </button>
                )}
              </header>
              {file.otherSession ? (
                <p className="rewind-warning">Changed by another session in this folder, not by this one: revert it from that session.</p>
              ) : null}
              {file.changedSince && !file.otherSession ? (
                <p className="rewind-warning">This file changed again after this turn: reverting the whole file also discards those later changes.</p>
              ) : null}
              {file.binary ? (
                <p className="diff-empty-note">A binary file: no diff to show.</p>
              ) : file.hunks.length ? (
                file.hunks.map((hunk, i) => (
                  <div key={`${file.path}:${i}:${hunk.oldStart}`} className="review-hunk">
                    <div className="review-hunk-bar">
                      <span className="file-meta">
                        Hunk {i + 1} of {file.hunks.length}
                      </span>
                      {file.otherSession ? null : (
                        <button
                          type="button"
                          className="link-button"
                          disabled={busy || running}
                          onClick={() => void revert(file, i)}
                          aria-label={`Revert hunk ${i + 1} of ${file.path}`}
                        >
                          Revert hunk
                        </button>
                      )}
                    </div>
                    <HunkDiff path={file.path} hunks={[hunk]} />
                  </div>
                ))
              ) : (
                <p className="diff-empty-note">{file.truncated ? 'Too large to show: revert the whole file, or open it.' : 'Only its mode changed.'}</p>
              )}
            </section>
          ) : null}
        </div>
      )}
    </Dialog>
  );
}
