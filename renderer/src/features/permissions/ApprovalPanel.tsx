import { useRef, useState } from 'react';
import { useFocusWhileShown } from '../../components/focus';
import { Icon } from '../../components/Icon';
import { answerApproval } from '../../actions/approvals';
import { type PendingApproval, requestsOf, useApprovals } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { useWorktrees } from '../../stores/worktrees';
import { PlanWaiting } from '../plan/PlanReview';
import { renderInput } from '../tools/registry';
import { AlwaysAllowEditor } from './AlwaysAllowEditor';
import { type KeyAnswer, answerKeys } from './approval-keys';
import { KeyButton } from './KeyButton';
import { DisplayFallback } from './DisplayFallback';
import { GoalModeChoice } from './GoalModeChoice';

/** What the call will do: the display-kind registry's rendering, else a plain fallback. */
function CallPreview({ approval }: { approval: PendingApproval }) {
  return <div className="approval-preview">{renderInput(approval.display) ?? <DisplayFallback display={approval.display} />}</div>;
}

/**
 * Which session asks, and where it runs: several sessions run at once (the main checkout's and each worktree's, in
 * one window), so a card says whose it is — the checkout only where the repository has worktrees.
 */
export function ApprovalAsker({ sessionId }: { sessionId: string | null }) {
  const title = useSessions((s) => s.sessions.find((x) => x.id === sessionId)?.title);
  const viewing = useWorktrees((s) => s.viewing);
  const anyWorktree = useWorktrees((s) => s.worktrees.length > 0);
  const where = viewing ? `in the worktree ${viewing.branch}` : anyWorktree ? 'in the main checkout' : '';
  return (
    <p className="approval-asker">
      Asked by the session <strong>{title ?? 'open here'}</strong>
      {where ? ` · ${where}` : ''}
    </p>
  );
}

/**
 * An approval: what asks (header) and the answers (footer) stay in view; only what it will do (the diff,
 * the command) scrolls between them. Single keys answer while the focus is in it.
 */
function ToolApproval({ approval, position, sessionId }: { approval: PendingApproval; position: string; sessionId: string | null }) {
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const primary = useRef<HTMLButtonElement>(null);
  useFocusWhileShown(primary);
  const answer = (a: Parameters<typeof answerApproval>[1]) => {
    setBusy(true);
    void answerApproval(approval.requestId, a).finally(() => setBusy(false));
  };
  const goal = approval.kind === 'goal_start';
  // A sandboxed command's connection to a new host: the answers name the host; "always" adds it to the
  // sandbox's allowed domains at once. A web tool's rule wider than the call (a host) is named on the buttons.
  const network = approval.kind === 'network';
  const scope = approval.approvalScope && !network ? approval.approvalScope : null;
  const labels = network
    ? {
        title: 'Allow a connection?',
        once: 'Allow once',
        session: 'Allow for session',
        always: 'Always allow this host',
        alwaysTitle: `Add ${approval.approvalRule ?? ''} to sandbox.network.allowedDomains in .deft/settings.local.json`,
      }
    : {
        title: goal ? 'Start a goal?' : 'Approval needed',
        once: goal ? 'Start goal' : 'Approve once',
        session: scope ? `Allow ${scope} for session` : 'Approve for session',
        always: scope ? `Always allow ${scope}…` : 'Always allow…',
        alwaysTitle: 'Choose the rule to add to .deft/settings.local.json',
      };
  const once: KeyAnswer = { key: 'y', run: () => answer({ decision: 'approve', scope: 'once' }) };
  // A goal may instead run without asking: yolo while it is active, the session's mode back when it stops.
  const unattended: KeyAnswer = { key: 'w', run: () => answer({ decision: 'approve', scope: 'once', goalMode: 'yolo' }) };
  const session: KeyAnswer = { key: 'a', run: () => answer({ decision: 'approve', scope: 'session' }) };
  // Always allow first shows the rule it would save (a prefix rule the user can edit); a host is saved as it is.
  const always: KeyAnswer = { key: 'A', run: () => (network ? answer({ decision: 'approve', scope: 'always' }) : setEditing(!editing)) };
  const reject: KeyAnswer = { key: 'n', run: () => answer(feedback.trim() ? { decision: 'reject', feedback: feedback.trim() } : { decision: 'reject' }) };
  // A goal start is a choice of how that goal runs each time, so it is not remembered for later goals
  // (allow rules and the mode still decide whether the card shows at all).
  const rememberable = approval.approvalRule && !goal ? approval.approvalRule : null;
  const keys = [once, ...(goal ? [unattended] : []), ...(rememberable ? [session, always] : []), reject];
  return (
    // Focusable itself (not in the Tab order), so a click anywhere in the card — its text, the diff, a disabled
    // control — keeps the focus in it and the single keys still answer.
    <section className="approval" role="region" aria-label="Approval needed" tabIndex={-1} onKeyDown={answerKeys(keys, busy)}>
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
      <div className="approval-scroll">
        <ApprovalAsker sessionId={sessionId} />
        {approval.reason ? <p className="approval-reason">{approval.reason}</p> : null}
        <CallPreview approval={approval} />
        {goal ? <GoalModeChoice /> : null}
        {rememberable ? (
          <p className="approval-rule">
            {network ? 'Host' : 'Rule'}: <code>{approval.approvalRule}</code>
          </p>
        ) : null}
      </div>
      <footer className="approval-footer">
        {editing && !network && rememberable ? <AlwaysAllowEditor approval={approval} onCancel={() => setEditing(false)} /> : null}
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
          <KeyButton buttonRef={primary} answer={once} label={labels.once} className="button-primary" disabled={busy} icon="check" />
          {goal ? (
            <KeyButton
              answer={unattended}
              label="Start without asking"
              disabled={busy}
              title="Run the goal's turns in yolo mode; your mode comes back when the goal stops"
            />
          ) : null}
          {rememberable ? (
            <>
              <KeyButton
                answer={session}
                label={labels.session}
                scope={scope}
                disabled={busy}
                title={`Remember ${approval.approvalRule} until this session ends`}
              />
              <KeyButton
                answer={always}
                label={labels.always}
                scope={scope}
                disabled={busy}
                {...(network ? {} : { expanded: editing })}
                title={labels.alwaysTitle}
              />
            </>
          ) : null}
          <span className="approval-spacer" />
          <KeyButton answer={reject} label="Reject" className="button-reject" disabled={busy} icon="x" />
        </div>
      </footer>
    </section>
  );
}

/** The oldest request waiting for the user in this session (the rest queue behind it). A plan opens in its own tall pane. */
export function ApprovalPanel() {
  const sessionId = useSessions((s) => s.currentId);
  const approvals = useApprovals((s) => requestsOf(s, sessionId).approvals);
  const current = approvals[0];
  if (!current) return null;
  const position = approvals.length > 1 ? `1 of ${approvals.length}` : '';
  if (current.kind === 'plan_review') return <PlanWaiting key={current.requestId} approval={current} />;
  return <ToolApproval key={current.requestId} approval={current} position={position} sessionId={sessionId} />;
}
