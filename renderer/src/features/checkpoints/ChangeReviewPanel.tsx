import { useRef, useState } from 'react';
import type { ChangeReviewRequest } from '#protocol';
import { useFocusWhileShown } from '../../components/focus';
import { Icon } from '../../components/Icon';
import { answerChangeReview } from '../../actions/checkpoints';
import { useCheckpoints } from '../../stores/checkpoints';
import { DiffStats } from '../files/DiffView';
import { HunkDiff } from './HunkDiff';

/** Review mode, above the composer: the change a Write or Edit proposes, hunk by hunk, to apply or leave out. */
export function ChangeReviewPanel() {
  const reviews = useCheckpoints((s) => s.reviews);
  const first = reviews[0];
  if (!first) return null;
  return <Review key={first.requestId} request={first} position={reviews.length > 1 ? `1 of ${reviews.length}` : ''} />;
}

function Review({ request, position }: { request: ChangeReviewRequest; position: string }) {
  const count = Math.max(1, request.hunks.length);
  const [accepted, setAccepted] = useState<boolean[]>(() => Array.from({ length: count }, () => true));
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState(false);
  const primary = useRef<HTMLButtonElement>(null);
  useFocusWhileShown(primary);
  const chosen = accepted.filter(Boolean).length;
  const send = (decisions: boolean[]) => {
    setBusy(true);
    void answerChangeReview(request, decisions, feedback).finally(() => setBusy(false));
  };
  return (
    <section className="approval change-review" role="region" aria-label="Review the change">
      <header className="approval-header">
        <Icon name="file" size={15} className="approval-icon" />
        <h2>Review the change</h2>
        <span className="approval-tool">{request.toolName}</span>
        <span className="approval-description">{request.path}</span>
        <DiffStats added={request.added} removed={request.removed} />
        {position ? <span className="approval-position">{position}</span> : null}
      </header>
      <p className="approval-reason">
        Review mode: nothing is written until you choose. Untick the hunks to leave out; the model is told exactly what was applied.
      </p>
      <div className="change-review-hunks">
        {request.hunks.length ? (
          request.hunks.map((hunk, i) => (
            <div key={i} className={accepted[i] ? 'review-hunk' : 'review-hunk review-hunk-rejected'}>
              <label className="review-hunk-bar">
                <input type="checkbox" checked={accepted[i] ?? false} onChange={(e) => setAccepted(accepted.map((a, j) => (j === i ? e.target.checked : a)))} />
                <span>
                  Apply hunk {i + 1} of {request.hunks.length}
                </span>
              </label>
              <HunkDiff path={request.path} hunks={[hunk]} />
            </div>
          ))
        ) : (
          <p className="file-meta">This change cannot be shown as hunks (the file is not text): apply it whole or not at all.</p>
        )}
      </div>
      <label className="approval-feedback">
        <span>Note for Deft (optional)</span>
        <textarea rows={1} value={feedback} placeholder="e.g. Keep the old name" onChange={(e) => setFeedback(e.target.value)} />
      </label>
      <div className="approval-actions">
        <button ref={primary} type="button" className="button button-primary" disabled={busy || chosen === 0} onClick={() => send(accepted)}>
          <Icon name="check" size={14} /> {chosen === count ? 'Apply' : `Apply ${chosen} of ${count}`}
        </button>
        <button type="button" className="button" disabled={busy} onClick={() => send(accepted.map(() => false))}>
          <Icon name="x" size={14} /> Reject all
        </button>
      </div>
    </section>
  );
}
