import { useRef, useState } from 'react';
import { useFocusWhileShown } from '../../components/focus';
import { Icon } from '../../components/Icon';
import { answerApproval } from '../../actions/approvals';
import { type PendingApproval, requestsOf, useApprovals } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { PlanReview } from '../plan/PlanReview';
import { renderInput } from '../tools/registry';
import { DisplayFallback } from './DisplayFallback';

/** What the call will do: the display-kind registry's rendering, else a plain fallback. */
function CallPreview({ approval }: { approval: PendingApproval }) {
  return <div className="approval-preview">{renderInput(approval.display) ?? <DisplayFallback display={approval.display} />}</div>;
}

function ToolApproval({ approval, position }: { approval: PendingApproval; position: string }) {
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState(false);
  const primary = useRef<HTMLButtonElement>(null);
  useFocusWhileShown(primary);
  const answer = (a: Parameters<typeof answerApproval>[1]) => {
    setBusy(true);
    void answerApproval(approval.requestId, a).finally(() => setBusy(false));
  };
  const goal = approval.kind === 'goal_start';
  const network = approval.kind === 'network';
  const labels = network
    ? { title: 'Allow a connection?', once: 'Allow once', session: 'Allow for session', always: 'Always allow this host', alwaysTitle: `Add ${approval.approvalRule ?? ''} to sandbox.network.allowedDomains in .deft/settings.local.json` }
    : { title: goal ? 'Start a goal?' : 'Approval needed', once: goal ? 'Start goal' : 'Approve once', session: 'Approve for session', always: 'Always allow', alwaysTitle: `Add ${approval.approvalRule ?? ''} to .deft/settings.local.json` };
  return (
    <section className="approval" role="region" aria-label="Approval needed">
      <header className="approval-header">
        <Icon name="alert" size={15} className="approval-icon" />
        <h2>{labels.title}</h2>
        <span className="approval-tool">{approval.toolName}</span>
        {approval.agent ? (
          <span className="approval-agent" title={`Asked by the ${approval.agent.type} sub-agent ${approval.agent.agentId}`}>
            Sub-agent {approval.agent.type}: {approval.agent.description}
          </span>
        ) : null}
        <span className="approval-description" title={approval.description}>
          {approval.description}
        </span>
        {position ? <span className="approval-position">{position}</span> : null}
      </header>
      <p className="approval-reason">{approval.reason}</p>
      <CallPreview approval={approval} />
      <label className="approval-feedback">
        <span>Feedback for Deft (sent if you reject)</span>
        <textarea
          rows={1}
          value={feedback}
          placeholder="e.g. Put it in docs/ instead"
          onChange={(e) => setFeedback(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && feedback.trim()) {
              e.preventDefault();
              answer({ decision: 'reject', feedback: feedback.trim() });
            }
          }}
        />
      </label>
      <div className="approval-actions">
        <button ref={primary} type="button" className="button button-primary" disabled={busy} onClick={() => answer({ decision: 'approve', scope: 'once' })}>
          <Icon name="check" size={14} /> {labels.once}
        </button>
        {approval.approvalRule ? (
          <>
            <button
              type="button"
              className="button"
              disabled={busy}
              title={`Remember ${approval.approvalRule} until this session ends`}
              onClick={() => answer({ decision: 'approve', scope: 'session' })}
            >
              {approval.approvalScope && !network ? <span className="approval-scope">Allow {approval.approvalScope} for session</span> : labels.session}
            </button>
            <button
              type="button"
              className="button"
              disabled={busy}
              title={labels.alwaysTitle}
              onClick={() => answer({ decision: 'approve', scope: 'always' })}
            >
              {approval.approvalScope && !network ? <span className="approval-scope">Always allow {approval.approvalScope}</span> : labels.always}
            </button>
          </>
        ) : null}
        <span className="approval-spacer" />
        <button type="button" className="button button-reject" disabled={busy} onClick={() => answer(feedback.trim() ? { decision: 'reject', feedback: feedback.trim() } : { decision: 'reject' })}>
          <Icon name="x" size={14} /> Reject
        </button>
      </div>
      {approval.approvalRule ? (
        <p className="approval-rule">
          {network ? 'Host' : 'Rule'}: <code>{approval.approvalRule}</code>
        </p>
      ) : null}
    </section>
  );
}

/** The oldest request waiting for the user in this session (the rest queue behind it). */
export function ApprovalPanel() {
  const sessionId = useSessions((s) => s.currentId);
  const approvals = useApprovals((s) => requestsOf(s, sessionId).approvals);
  const current = approvals[0];
  if (!current) return null;
  const position = approvals.length > 1 ? `1 of ${approvals.length}` : '';
  if (current.kind === 'plan_review') return <PlanReview key={current.requestId} approval={current} position={position} />;
  return <ToolApproval key={current.requestId} approval={current} position={position} />;
}
