import { memo, useMemo, useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { Icon } from '../../components/Icon';
import { useCheckpointDialog } from '../../stores/checkpoints';
import { rowById } from '../../stores/rows';
import { useTranscript } from '../../stores/transcript';
import type { ChangedFile, ChangesItem } from '../../stores/changes';
import { type DiffDisplay, combinedDiff } from './diff-model';
import { DiffStats, DiffView } from './DiffView';

/** The diff displays of the calls that changed a file. */
function useDiffs(callIds: readonly string[]): DiffDisplay[] {
  const items = useTranscript((s) => s.items);
  return useMemo(() => {
    const out: DiffDisplay[] = [];
    for (const id of callIds) {
      const item = rowById(items, id);
      if (item?.kind === 'tool' && item.result?.display?.kind === 'diff') out.push(item.result.display);
    }
    return out;
  }, [items, callIds]);
}

function FileChangesDialog({ file, onClose }: { file: ChangedFile; onClose: () => void }) {
  const diffs = useDiffs(file.callIds);
  const combined = useMemo(() => combinedDiff(file.path, diffs), [file.path, diffs]);
  return (
    <Dialog title={`Changes to ${file.path}`} onClose={onClose} wide>
      {combined ? (
        <DiffView display={combined} showPath />
      ) : (
        diffs.map((d, i) => (
          <section key={i} className="change-step">
            <h3>
              Change {i + 1} of {diffs.length}
            </h3>
            <DiffView display={d} />
          </section>
        ))
      )}
    </Dialog>
  );
}

/**
 * After a turn: the files it changed, each with +/− counts. Known from checkpoints (every change, shell
 * commands' too), a click opens the review pane; known only from the tools' diffs, it opens the file's diff.
 */
export const ChangedFilesSummary = memo(function ChangedFilesSummary({ item }: { item: ChangesItem }) {
  const [open, setOpen] = useState<ChangedFile | null>(null);
  const review = (path?: string) => useCheckpointDialog.getState().show({ kind: 'review', turnId: item.turnId, ...(path ? { path } : {}) });
  const totals = item.files.reduce((t, f) => ({ added: t.added + f.added, removed: t.removed + f.removed }), { added: 0, removed: 0 });
  return (
    <section className="changed-files" role="group" aria-label="Changed files">
      <div className="changed-files-header">
        <Icon name="file" size={14} />
        <span>
          Changed {item.files.length + (item.more ?? 0)} file{item.files.length + (item.more ?? 0) === 1 ? '' : 's'}
        </span>
        <DiffStats {...totals} />
        {item.checkpointed ? (
          <span className="changed-files-actions">
            <button type="button" className="link-button" onClick={() => review()}>
              Review
            </button>
            <button type="button" className="link-button" onClick={() => useCheckpointDialog.getState().show({ kind: 'review' })}>
              Session changes
            </button>
          </span>
        ) : null}
      </div>
      <ul>
        {item.files.map((file) => (
          <li key={file.path}>
            <button
              type="button"
              className="changed-file"
              onClick={() => (item.checkpointed ? review(file.path) : setOpen(file))}
              aria-label={`Show changes to ${file.path}`}
            >
              <span className="file-path">
                {file.path}
                {file.status === 'added' || file.status === 'deleted' ? <span className="file-meta"> ({file.status})</span> : null}
              </span>
              {file.binary ? <span className="file-meta">binary</span> : <DiffStats added={file.added} removed={file.removed} />}
            </button>
          </li>
        ))}
      </ul>
      {/* Rows are transformed (virtualised), so a fixed-position dialog must live outside them. */}
      {open ? <FileChangesDialog file={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
});
