import { useState } from 'react';
import { Dialog } from '../../components/Dialog';
import { forkSession } from '../../actions/sessions';

const CHOICES: Array<{ value: 'keep' | 'restore'; label: string; hint: string }> = [
  { value: 'keep', label: 'Keep the files as they are', hint: 'Only the conversation is copied; the workspace is not touched.' },
  {
    value: 'restore',
    label: 'Restore the files as they were then',
    hint: 'From the checkpoints, as a rewind of the new session (Undo rewind puts them back). Files you changed yourself since are kept.',
  },
];

/** Fork from here: a new session with the conversation up to the end of this turn; the files kept or restored. */
export function ForkDialog({ turnId, text, onClose }: { turnId: string; text: string; onClose: () => void }) {
  const [files, setFiles] = useState<'keep' | 'restore'>('keep');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    const error = await forkSession(turnId, files);
    setBusy(false);
    if (error === null) onClose();
    else setFailure(error);
  };
  return (
    <Dialog
      title="Fork from here"
      onClose={onClose}
      initialFocus='input[name="fork-files"]:checked'
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="button button-primary" disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Forking…' : 'Fork'}
          </button>
        </>
      }
    >
      <blockquote className="rewind-prompt">{text || 'This turn'}</blockquote>
      <p className="fork-note">A new session gets the conversation up to the end of this turn. This session stays as it is.</p>
      <fieldset className="rewind-scope">
        <legend>Files</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className="rewind-scope-option">
            <input type="radio" name="fork-files" value={c.value} checked={files === c.value} onChange={() => setFiles(c.value)} />
            <span>
              <strong>{c.label}</strong>
              <span className="rewind-hint">{c.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {failure ? (
        <p className="rewind-error" role="alert">
          {failure}
        </p>
      ) : null}
    </Dialog>
  );
}
