import { useRef, useState } from 'react';
import { useFocusWhileShown } from '../../components/focus';
import { Icon } from '../../components/Icon';
import { type PendingApproval, requestsOf, useApprovals } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { useUi } from '../../stores/ui';
import { answerApproval } from '../../actions/approvals';
import { Markdown } from '../conversation/Markdown';
import { type KeyAnswer, answerKeys } from '../permissions/approval-keys';
import { KeyButton } from '../permissions/KeyButton';

/** The plan waiting for review in the open session, if the oldest request is one. */
export function usePendingPlan(): PendingApproval | null {
  const sessionId = useSessions((s) => s.currentId);
  const first = useApprovals((s) => requestsOf(s, sessionId).approvals[0]);
  return first?.kind === 'plan_review' ? first : null;
}

/**
 * The plan the agent wrote, in a tall pane in place of the conversation: its title and the answers stay
 * in view while the plan scrolls. Approve (optionally picking an approach), revise with feedback, or reject.
 */
export function PlanReview({ approval }: { approval: PendingApproval }) {
  const display = approval.display.kind === 'plan_review' ? approval.display : null;
  const options = display?.options ?? [];
  const [choice, setChoice] = useState(options[0]?.label ?? '');
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const primary = useRef<HTMLButtonElement>(null);
  const feedbackBox = useRef<HTMLTextAreaElement>(null);
  useFocusWhileShown(primary);
  if (!display) return null;
  const answer = (a: Parameters<typeof answerApproval>[1]) => {
    setBusy(true);
    void answerApproval(approval.requestId, a).finally(() => setBusy(false));
  };
  const approve: KeyAnswer = {
    key: 'y',
    run: () => answer({ decision: 'approve', scope: 'once', ...(options.length && choice ? { selectedLabel: choice } : {}) }),
  };
  const revise: KeyAnswer = {
    key: 'r',
    run: () => {
      if (feedback.trim()) answer({ decision: 'revise', feedback: feedback.trim() });
      else {
        setError('Write what should change in the plan, then choose Revise.');
        feedbackBox.current?.focus();
      }
    },
  };
  const reject: KeyAnswer = { key: 'n', run: () => answer(feedback.trim() ? { decision: 'reject', feedback: feedback.trim() } : { decision: 'reject' }) };
  return (
    <section className="approval plan-review plan-pane" role="region" aria-label="Plan review" onKeyDown={answerKeys([approve, revise, reject], busy)}>
      <header className="approval-header">
        <Icon name="file" size={15} className="approval-icon" />
        <h2>Plan ready for review</h2>
        {display.path ? (
          <span className="approval-description" title={display.path}>
            {display.path}
          </span>
        ) : null}
        <button
          type="button"
          className="button button-small button-ghost"
          onClick={() => useUi.getState().setHiddenPlan(approval.requestId)}
          title="Read the conversation; the plan waits above the message box"
        >
          Show conversation
        </button>
      </header>
      <div className="approval-scroll">
        <div className="plan-body plan-review-body" tabIndex={0} aria-label="Plan">
          <Markdown text={display.plan} />
        </div>
      </div>
      <footer className="approval-footer">
        {options.length ? (
          <fieldset className="plan-options">
            <legend>Approach</legend>
            {options.map((o) => (
              <label key={o.label} className="plan-option">
                <input
                  type="radio"
                  name={`plan-option-${approval.requestId}`}
                  value={o.label}
                  checked={choice === o.label}
                  onChange={() => setChoice(o.label)}
                />
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
            ref={feedbackBox}
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
          <KeyButton
            buttonRef={primary}
            answer={approve}
            label={`Approve${options.length && choice ? ` “${choice}”` : ''}`}
            className="button-primary"
            disabled={busy}
            icon="check"
          />
          <KeyButton answer={revise} label="Revise" disabled={busy} />
          <span className="approval-spacer" />
          <KeyButton answer={reject} label="Reject" className="button-reject" disabled={busy} icon="x" />
        </div>
      </footer>
    </section>
  );
}

/** A plan set aside while the conversation is read: one line above the message box to go back to it. */
export function PlanWaiting({ approval }: { approval: PendingApproval }) {
  const hidden = useUi((s) => s.hiddenPlan === approval.requestId);
  if (!hidden) return null;
  return (
    <section className="approval approval-compact plan-review" role="region" aria-label="Plan waiting for review">
      <header className="approval-header">
        <Icon name="file" size={15} className="approval-icon" />
        <h2>Plan ready for review</h2>
        <span className="approval-spacer" />
        <button type="button" className="button button-small button-primary" onClick={() => useUi.getState().setHiddenPlan(null)}>
          Review plan
        </button>
      </header>
    </section>
  );
}
