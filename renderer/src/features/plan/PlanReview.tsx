import { useRef, useState } from 'react';
import { useFocusWhileShown } from '../../components/focus';
import { Icon } from '../../components/Icon';
import type { PendingApproval } from '../../stores/approvals';
import { answerApproval } from '../../actions/approvals';
import { Markdown } from '../conversation/Markdown';

/** The plan the agent wrote, for the user to approve (optionally picking an approach), revise with feedback, or reject. */
export function PlanReview({ approval, position }: { approval: PendingApproval; position: string }) {
  const display = approval.display.kind === 'plan_review' ? approval.display : null;
  const options = display?.options ?? [];
  const [choice, setChoice] = useState(options[0]?.label ?? '');
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const primary = useRef<HTMLButtonElement>(null);
  useFocusWhileShown(primary);
  if (!display) return null;
  const answer = (a: Parameters<typeof answerApproval>[1]) => {
    setBusy(true);
    void answerApproval(approval.requestId, a).finally(() => setBusy(false));
  };
  return (
    <section className="approval plan-review" role="region" aria-label="Plan review">
      <header className="approval-header">
        <Icon name="file" size={15} className="approval-icon" />
        <h2>Plan ready for review</h2>
        {display.path ? (
          <span className="approval-description" title={display.path}>
            {display.path}
          </span>
        ) : null}
        {position ? <span className="approval-position">{position}</span> : null}
      </header>
      <div className="plan-body plan-review-body" tabIndex={0} aria-label="Plan">
        <Markdown text={display.plan} />
      </div>
      {options.length ? (
        <fieldset className="plan-options">
          <legend>Approach</legend>
          {options.map((o) => (
            <label key={o.label} className="plan-option">
              <input type="radio" name={`plan-option-${approval.requestId}`} value={o.label} checked={choice === o.label} onChange={() => setChoice(o.label)} />
              <span>
                <strong>{o.label}</strong>
                {o.description ? <span className="option-description"> — {o.description}</span> : null}
              </span>
            </label>
          ))}
        </fieldset>
      ) : null}
      <label className="approval-feedback">
        <span>Feedback (needed to revise; optional when rejecting)</span>
        <textarea
          rows={2}
          value={feedback}
          onChange={(e) => {
            setFeedback(e.target.value);
            setError('');
          }}
        />
      </label>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="approval-actions">
        <button
          ref={primary}
          type="button"
          className="button button-primary"
          disabled={busy}
          onClick={() => answer({ decision: 'approve', scope: 'once', ...(options.length && choice ? { selectedLabel: choice } : {}) })}
        >
          <Icon name="check" size={14} /> Approve{options.length && choice ? ` “${choice}”` : ''}
        </button>
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={() => (feedback.trim() ? answer({ decision: 'revise', feedback: feedback.trim() }) : setError('Write what should change in the plan, then choose Revise.'))}
        >
          Revise
        </button>
        <span className="approval-spacer" />
        <button type="button" className="button button-reject" disabled={busy} onClick={() => answer(feedback.trim() ? { decision: 'reject', feedback: feedback.trim() } : { decision: 'reject' })}>
          <Icon name="x" size={14} /> Reject
        </button>
      </div>
    </section>
  );
}
