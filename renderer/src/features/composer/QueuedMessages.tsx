import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { editQueuedPrompt, removeQueuedPrompt, sendQueuedPrompt } from '../../actions/queue';
import { type QueuedMessage, useQueue } from '../../stores/queue';
import { useTranscript } from '../../stores/transcript';
import './queue.css';

/**
 * The messages typed while a turn ran, under the transcript until they are sent: each can be edited or removed, sent
 * into the running turn now (Steer), or — when no turn runs, e.g. after Stop — sent as a turn of its own.
 */
export function QueuedMessages() {
  const items = useQueue((s) => s.items);
  const running = useTranscript((s) => s.runningTurn !== null);
  if (!items.length) return null;
  return (
    <section className="queue" aria-label="Queued messages">
      <ol className="queue-list">
        {items.map((item) => (
          <QueuedRow key={item.queueId} item={item} running={running} />
        ))}
      </ol>
    </section>
  );
}

function QueuedRow({ item, running }: { item: QueuedMessage; running: boolean }) {
  const [draft, setDraft] = useState<string | null>(null);
  const save = async () => {
    if (draft === null || !draft.trim()) return;
    if (draft === item.text || (await editQueuedPrompt(item.queueId, draft))) setDraft(null);
  };
  const label = item.steer
    ? 'Steer — reaches the model after the current tool calls'
    : running
      ? 'Queued — sent when this turn ends'
      : 'Queued — waiting (the turn was stopped)';
  return (
    <li className={`queue-item${item.steer ? ' queue-item-steer' : ''}`} aria-label={item.steer ? 'Steer message' : 'Queued message'}>
      <span className="queue-kind">{label}</span>
      {draft === null ? (
        <p className="queue-text">{item.text}</p>
      ) : (
        <textarea
          className="queue-edit"
          aria-label="Edit queued message"
          value={draft}
          autoFocus
          rows={Math.min(8, Math.max(1, draft.split('\n').length))}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              setDraft(null);
            } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void save();
            }
          }}
        />
      )}
      <div className="queue-actions">
        {draft === null ? (
          <>
            <button type="button" className="toolbar-button" aria-label="Edit" title="Edit" onClick={() => setDraft(item.text)}>
              <Icon name="edit" size={14} />
            </button>
            {running && item.steer ? null : (
              <button
                type="button"
                className="button button-small"
                title={running ? 'Deliver it into the running turn at its next step' : 'Send it now as a new turn'}
                onClick={() => void sendQueuedPrompt(item.queueId)}
              >
                {running ? 'Steer' : 'Send now'}
              </button>
            )}
            <button type="button" className="toolbar-button" aria-label="Remove" title="Remove" onClick={() => void removeQueuedPrompt(item.queueId)}>
              <Icon name="x" size={14} />
            </button>
          </>
        ) : (
          <>
            <button type="button" className="button button-small" onClick={() => setDraft(null)}>
              Cancel
            </button>
            <button type="button" className="button button-small button-primary" disabled={!draft.trim()} onClick={() => void save()}>
              Save
            </button>
          </>
        )}
      </div>
    </li>
  );
}
