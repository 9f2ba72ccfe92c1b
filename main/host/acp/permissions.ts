import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { ApprovalAnswer, SessionEventOf } from '#protocol';
import { diffContent, toolKind, toolLocations } from './tool-calls';

// Deft's approval requests as ACP `session/request_permission`, and the client's choice back as Deft's
// answer. Anything but a choice the client was offered (cancelled, an error, an unknown option id) is a refusal.

type ApprovalRequested = SessionEventOf<'approval.requested'>;

const REJECT = 'reject';

/** The choices of an approval request: once, for the session, always (both only where a rule can be stored), reject. */
export function approvalOptions(event: ApprovalRequested): PermissionOption[] {
  if (event.kind === 'plan_review') {
    const labels = event.display.kind === 'plan_review' && event.display.options?.length ? event.display.options.map((o) => o.label) : ['Approve the plan'];
    return [
      ...labels.map((label, i): PermissionOption => ({ optionId: `plan:${i}`, name: label, kind: 'allow_once' })),
      { optionId: 'revise', name: 'Keep planning', kind: 'reject_once' },
      { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
    ];
  }
  const options: PermissionOption[] = [{ optionId: 'once', name: 'Allow once', kind: 'allow_once' }];
  if (event.approvalRule) {
    const rule = event.approvalScope ?? event.approvalRule;
    options.push(
      { optionId: 'session', name: `Allow for this session (${rule})`, kind: 'allow_always' },
      { optionId: 'always', name: `Always allow (${rule}, saved in .deft/settings.local.json)`, kind: 'allow_always' },
    );
  }
  options.push({ optionId: REJECT, name: 'Reject', kind: 'reject_once' });
  return options;
}

export function approvalRequest(sessionId: string, event: ApprovalRequested, cwd: string): RequestPermissionRequest {
  const locations = toolLocations(event.display, cwd);
  return {
    sessionId,
    toolCall: {
      toolCallId: event.callId ?? event.requestId,
      title: event.reason ? `${event.description} — ${event.reason}` : event.description,
      kind: toolKind(event.toolName, event.display),
      ...(event.display.kind === 'diff' ? { content: [diffContent(event.display, cwd)] } : {}),
      ...(event.display.kind === 'plan_review' ? { content: [{ type: 'content', content: { type: 'text', text: event.display.plan } }] } : {}),
      ...(locations.length ? { locations } : {}),
    },
    options: approvalOptions(event),
  };
}

/** The client's outcome as Deft's answer; whatever was not a choice offered approves nothing. */
export function approvalAnswer(event: ApprovalRequested, outcome: RequestPermissionOutcome | null): ApprovalAnswer {
  const refused: ApprovalAnswer = { decision: 'reject', feedback: 'The user did not approve this in the editor.' };
  if (!outcome || outcome.outcome !== 'selected') return refused;
  const option = approvalOptions(event).find((o) => o.optionId === outcome.optionId);
  if (!option || option.optionId === REJECT) return { decision: 'reject' };
  if (option.optionId === 'revise') return { decision: 'revise', feedback: 'Keep planning: the user did not accept the plan yet.' };
  if (option.optionId.startsWith('plan:')) return { decision: 'approve', scope: 'once', selectedLabel: option.name };
  return { decision: 'approve', scope: option.optionId as 'once' | 'session' | 'always' };
}
