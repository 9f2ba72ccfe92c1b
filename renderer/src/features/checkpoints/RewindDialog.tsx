import { useEffect, useState } from 'react';
import type { RewindPreview, RewindScope } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { Icon, Spinner } from '../../components/Icon';
import { previewRewind, rewind, stopTask } from '../../actions/checkpoints';
import { DiffStats } from '../files/DiffView';
import { ACTION_LABEL, countActions, plural, skippedReason } from './format';
import { HunkDiff } from './HunkDiff';

const SCOPES: Array<{ value: RewindScope; label: string; hint: string }> = [
  { value: 'both', label: 'Code and conversation', hint: 'Files and the conversation go back to just before this prompt.' },
  { value: 'code', label: 'Code only', hint: 'Files go back; the conversation stays (the model is told).' },
  { value: 'conversation', label: 'Conversation only', hint: 'The model stops reading this prompt and what followed; files stay as they are (like /undo).' },
];

type Loaded = { state: 'loading' } | { state: 'error'; error: string } | { state: 'ready'; preview: RewindPreview };

/** Rewind to just before a prompt: choose what, see what will change (with diffs and warnings), then confirm. */
export function RewindDialog({ turnId, text, onClose }: { turnId: string; text: string; onClose: () => void }) {
  const [scope, setScope] = useState<RewindScope>('both');
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [includeOutside, setIncludeOutside] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    void previewRewind(turnId, scope).then((r) => {
      if (!live) return;
      // A prompt without a checkpoint can still be rewound in the conversation.
      if (!r.ok && r.code === 'not_found' && scope === 'both') setScope('conversation');
      setLoaded(r.ok ? { state: 'ready', preview: r.value } : { state: 'error', error: r.error });
    });
    return () => {
      live = false;
    };
  }, [turnId, scope, reload]);

  const preview = loaded.state === 'ready' ? loaded.preview : null;
  const conversationBlocked = preview ? !preview.conversation.possible && scope !== 'code' : false;
  const outside = preview?.files.filter((f) => f.outside) ?? [];
  const changing = preview ? preview.files.filter((f) => includeOutside || !f.outside) : [];
  const nothing = preview ? scope === 'code' && changing.length === 0 : true;
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    const result = await rewind(turnId, scope, includeOutside, preview?.expect || undefined);
    setBusy(false);
    if (result.ok) onClose();
    else setFailure(result.error);
  };

  return (
    <Dialog
      title="Rewind to before this prompt"
      onClose={onClose}
      wide
      initialFocus='input[name="rewind-scope"]:checked'
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button button-primary" disabled={busy || !preview || conversationBlocked || nothing} onClick={() => void confirm()}>
            {busy ? 'Rewinding…' : 'Rewind'}
          </button>
        </>
      }
    >
      <blockquote className="rewind-prompt">{text || preview?.text || 'This prompt'}</blockquote>
      <fieldset className="rewind-scope">
        <legend>What to rewind</legend>
        {SCOPES.map((s) => (
          <label key={s.value} className="rewind-scope-option">
            <input type="radio" name="rewind-scope" value={s.value} checked={scope === s.value} onChange={() => setScope(s.value)} />
            <span>
              <strong>{s.label}</strong>
              <span className="rewind-hint">{s.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {failure ? (
        <p className="rewind-error" role="alert">
          {failure}{' '}
          <button type="button" className="link-button" onClick={() => setReload((n) => n + 1)}>
            Look again
          </button>
        </p>
      ) : null}
      {loaded.state === 'loading' ? (
        <p className="rewind-loading" role="status">
          <Spinner size={12} /> Comparing the workspace with that point…
        </p>
      ) : loaded.state === 'error' ? (
        <p className="rewind-error" role="alert">
          {loaded.error}
        </p>
      ) : (
        <PreviewBody
          preview={loaded.preview}
          scope={scope}
          includeOutside={includeOutside}
          setIncludeOutside={setIncludeOutside}
          outsideCount={outside.length}
          onStopped={() => setReload((n) => n + 1)}
        />
      )}
    </Dialog>
  );
}

function PreviewBody({
  preview,
  scope,
  includeOutside,
  setIncludeOutside,
  outsideCount,
  onStopped,
}: {
  preview: RewindPreview;
  scope: RewindScope;
  includeOutside: boolean;
  setIncludeOutside: (on: boolean) => void;
  outsideCount: number;
  onStopped: () => void;
}) {
  const [open, setOpen] = useState<string | null>(null);
  const code = scope !== 'conversation';
  const changing = preview.files.filter((f) => includeOutside || !f.outside);
  return (
    <div className="rewind-preview">
      {scope !== 'code' ? (
        <p className={preview.conversation.possible ? 'rewind-line' : 'rewind-error'} role={preview.conversation.possible ? undefined : 'alert'}>
          <Icon name="undo" size={13} />{' '}
          {preview.conversation.possible
            ? `Conversation: the model stops reading this prompt${preview.conversation.turns > 1 ? ` and the ${plural(preview.conversation.turns - 1, 'turn')} after it` : ''}. The transcript keeps them, greyed.`
            : preview.conversation.reason}
        </p>
      ) : null}
      {code ? (
        <>
          <p className="rewind-line">
            <Icon name="file" size={13} /> Files:{' '}
            {changing.length ? `${plural(changing.length, 'file')} change — ${countActions(changing)}.` : 'nothing to change: the files are as they were then.'}
          </p>
          {outsideCount ? (
            <div className="rewind-warning" role="alert">
              <p>
                <Icon name="alert" size={13} /> {plural(outsideCount, 'file')} changed outside this session since then (by you, another program or another Deft
                session in this folder). They are left as they are unless you choose otherwise.
              </p>
              <label>
                <input type="checkbox" checked={includeOutside} onChange={(e) => setIncludeOutside(e.target.checked)} /> Also restore the files changed outside
                this session
              </label>
            </div>
          ) : null}
          {preview.runningTasks.length ? (
            <div className="rewind-warning" role="alert">
              <p>
                <Icon name="alert" size={13} /> Background tasks still running may change files after the rewind:
              </p>
              <ul>
                {preview.runningTasks.map((t) => (
                  <li key={t.id}>
                    <code>{t.id}</code> {t.description}{' '}
                    <button type="button" className="link-button" onClick={() => void stopTask(t.id).then(onStopped)}>
                      Stop it
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <ul className="rewind-files" aria-label="Files the rewind changes">
            {preview.files.map((file) => {
              const skipped = file.outside && !includeOutside;
              return (
                <li key={file.path} className={skipped ? 'rewind-file rewind-file-skipped' : 'rewind-file'}>
                  <button
                    type="button"
                    className="rewind-file-row"
                    aria-expanded={open === file.path}
                    onClick={() => setOpen(open === file.path ? null : file.path)}
                  >
                    <Icon name="chevron" size={11} className={`chevron${open === file.path ? ' chevron-open' : ''}`} />
                    <span className={`rewind-badge rewind-badge-${file.action}`}>{ACTION_LABEL[file.action]}</span>
                    <span className="file-path">{file.path}</span>
                    {file.outside ? (
                      <span className="rewind-outside">
                        {file.otherSession ? 'changed by another session' : 'changed outside Deft'}
                        {skipped ? ' — kept' : ''}
                      </span>
                    ) : null}
                    {file.binary ? <span className="file-meta">binary</span> : <DiffStats added={file.added ?? 0} removed={file.removed ?? 0} />}
                  </button>
                  {open === file.path ? (
                    file.binary ? (
                      <p className="diff-empty-note">A binary file: no diff to show.</p>
                    ) : (
                      <HunkDiff
                        path={file.path}
                        hunks={file.hunks}
                        added={file.added}
                        removed={file.removed}
                        {...(file.truncated ? { truncated: true } : {})}
                      />
                    )
                  ) : null}
                </li>
              );
            })}
          </ul>
          {preview.notCaptured.length ? (
            <div className="rewind-note">
              <p>Not restored — checkpoints do not capture these, so they stay as they are:</p>
              <ul>
                {preview.notCaptured.slice(0, 50).map((f) => (
                  <li key={f.path}>
                    <span className="file-path">{f.path}</span> <span className="file-meta">{skippedReason(f)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <p className="form-note">
            Files your .gitignore excludes are never captured or touched. A checkpoint of the files as they are now is kept, so the rewind can be undone.
          </p>
        </>
      ) : null}
    </div>
  );
}
