import { homedir } from 'node:os';
import type { ApprovalAnswer, ApprovalKind, Question, ToolInputDisplay } from '#protocol';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { ResolvedCall } from '#contract/calls';
import type { Places } from '#infra/policies/protected-paths';
import { PendingRequests } from '#infra/platform/pending-requests';
import { RuleStore, publicRules } from './rule-files';

/** What an approval request is about. `call` is set for tool calls, so a new rule can settle it. */
export interface ApprovalRequest {
  turnId: string;
  kind: ApprovalKind;
  toolName: string;
  callId?: string;
  description: string;
  display: ToolInputDisplay;
  reason: string;
  approvalRule?: string;
  /** What the rule covers in words, when wider than this call (a web host). */
  approvalScope?: string;
  /** Broader rules to offer for "Always allow" (prefix rules for a command). */
  suggestedRules?: string[];
  /** Labels the user may pick when approving (plan options). */
  options?: string[];
  /** The sub-agent whose call it is. */
  agent?: { agentId: string; type: string; description: string };
  call?: ResolvedCall;
}

export interface QuestionRequest {
  turnId: string;
  callId: string;
  questions: Question[];
}

/** The user's answers to questions, or a dismissal. */
export type QuestionReply = { dismissed: true } | { dismissed: false; answers: Record<string, string> };

/**
 * What the approvals capability keeps for one core: the permission rules and the requests waiting for
 * the user (approvals and questions), shared by its permission, plan and question parts.
 */
export interface ApprovalDesk {
  places: Places;
  rules: RuleStore;
  approvals: PendingRequests<ApprovalRequest, ApprovalAnswer>;
  questions: PendingRequests<QuestionRequest, QuestionReply>;
  /** Load the rules, telling the UI when they changed on disk. */
  loadRules(): ReturnType<RuleStore['load']>;
  /** Ask the user to approve something; resolves with the answer, or 'cancelled' when the turn stops first. */
  requestApproval(session: SessionHandle, request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer | 'cancelled'>;
  /** Settle a session's pending tool approvals that `stillNeeded` says no longer need the user (a new rule or mode covers them). */
  settleCovered(session: SessionHandle, stillNeeded: (request: ApprovalRequest) => Promise<boolean>): Promise<void>;
  /** Requests of a session waiting for the user, oldest first. */
  waitingFor(sessionId: string): Array<{ id: string; turnId: string }>;
  /** Settle everything still waiting (the core is closing). */
  cancelAll(): void;
}

export function createApprovalDesk(core: CoreContext): ApprovalDesk {
  const rules = new RuleStore(core.home, core.place);
  const approvals = new PendingRequests<ApprovalRequest, ApprovalAnswer>('approval');
  const questions = new PendingRequests<QuestionRequest, QuestionReply>('question');
  return {
    // A remote workspace's paths (and `~`) are the remote machine's: checks resolve them there (resolved-there.ts).
    places:
      core.environment.kind === 'local'
        ? { workspace: core.workspace, home: core.home, userHome: homedir() }
        : { workspace: core.workspace, home: core.home, userHome: core.environment.home, remote: core.environment },
    rules,
    approvals,
    questions,
    loadRules: async () => {
      const result = await rules.load();
      if (result.changed) core.emitApp({ type: 'permissions.updated', permissions: publicRules(result.loaded) });
      return result;
    },
    requestApproval: async (session, request, signal) => {
      const { id, answer } = await approvals.open(session.id, request, signal, (requestId) => {
        // The user's Notification hooks hear that Deft is waiting for them (a desktop notification, a sound).
        void session.hooks.fire({
          hook_event_name: 'Notification',
          notification_type: request.kind === 'network' ? 'network_prompt' : 'permission_prompt',
          message: `Deft needs your approval: ${request.description}`,
        });
        session.emit({
          type: 'approval.requested',
          turnId: request.turnId,
          requestId,
          kind: request.kind,
          toolName: request.toolName,
          description: request.description,
          display: request.display,
          reason: request.reason,
          ...(request.callId ? { callId: request.callId } : {}),
          ...(request.approvalRule ? { approvalRule: request.approvalRule } : {}),
          ...(request.approvalRule && request.approvalScope ? { approvalScope: request.approvalScope } : {}),
          ...(request.suggestedRules?.length ? { suggestedRules: request.suggestedRules } : {}),
          ...(request.agent ? { agent: request.agent } : {}),
        });
      });
      if (answer === 'cancelled') {
        session.emit({ type: 'approval.resolved', requestId: id, outcome: 'cancelled' });
      } else if (answer.decision === 'approve') {
        session.emit({
          type: 'approval.resolved',
          requestId: id,
          outcome: 'approved',
          scope: answer.scope,
          ...(answer.selectedLabel ? { selectedLabel: answer.selectedLabel } : {}),
        });
      } else {
        session.emit({
          type: 'approval.resolved',
          requestId: id,
          outcome: answer.decision === 'reject' ? 'rejected' : 'revise',
          ...(answer.feedback ? { feedback: answer.feedback } : {}),
        });
      }
      return answer;
    },
    settleCovered: async (session, stillNeeded) => {
      for (const { id, request } of approvals.list(session.id)) {
        if (request.kind === 'tool' && request.call && !(await stillNeeded(request))) approvals.settle(session.id, id, { decision: 'approve', scope: 'once' });
      }
    },
    waitingFor: (sessionId) => [...approvals.list(sessionId), ...questions.list(sessionId)].map(({ id, request }) => ({ id, turnId: request.turnId })),
    cancelAll: () => {
      approvals.cancelAll();
      questions.cancelAll();
    },
  };
}
