import { useEffect, useRef, useState } from 'react';
import type { PromptCheckpoint } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { Spinner } from '../../components/Icon';
import { listPrompts } from '../../actions/checkpoints';
import { relativeTime } from '../sessions/relative-time';
import { plural } from './format';

/** `/rewind`: the session's prompts, newest first; choosing one opens its rewind preview. */
export function RewindPicker({ onPick, onClose }: { onPick: (prompt: PromptCheckpoint) => void; onClose: () => void }) {
  const [prompts, setPrompts] = useState<PromptCheckpoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    void listPrompts().then((r) => (r.ok ? setPrompts(r.value.filter((p) => p.index > 0).reverse()) : setError(r.error)));
  }, []);
  // The list arrives after the dialog opened: its newest prompt takes the focus then.
  useEffect(() => list.current?.querySelector<HTMLElement>('.rewind-pick')?.focus(), [prompts]);
  return (
    <Dialog title="Rewind to a prompt" onClose={onClose}>
      {error ? (
        <p className="rewind-error" role="alert">
          {error}
        </p>
      ) : !prompts ? (
        <p role="status">
          <Spinner size={12} /> Loading the prompts…
        </p>
      ) : !prompts.length ? (
        <p className="empty-note">No prompt of this session has a checkpoint yet.</p>
      ) : (
        <>
          <p className="form-note">
            Rewinding to a prompt puts things back to just before it; you choose code, conversation or both, and see the changes first.
          </p>
          <ul ref={list} className="rewind-picker" aria-label="Prompts">
            {prompts.map((p) => (
              <li key={p.turnId}>
                <button type="button" className="rewind-pick" onClick={() => onPick(p)}>
                  <span className="rewind-pick-index">{p.index}</span>
                  <span className="rewind-pick-text">{p.text || '(no text)'}</span>
                  <span className="file-meta">
                    {relativeTime(p.at)} · {p.changedFiles ? `${plural(p.changedFiles, 'file')} changed after it` : 'no file changed after it'}
                    {p.inConversation ? '' : ' · code only'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </Dialog>
  );
}
