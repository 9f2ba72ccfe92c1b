import type { CapabilityFactory, SessionHandle } from '#contract/capability';
import { grantCommands } from './grants';
import type { ApprovalsOptions } from './options';
import { permissionRules } from './permissions';
import { planMode } from './plan';
import { userQuestions } from './questions';
import { createApprovalDesk } from './requests';

export type { ApprovalsOptions } from './options';

/**
 * Approvals: the user decides what the agent may do. Permission modes and rules decide on every call
 * and ask the user when needed; plan mode (investigate, write a plan, have it reviewed); questions the
 * model puts to the user. The three share one desk of rules and waiting requests.
 */
export function createApprovalsCapability(options: ApprovalsOptions = {}): CapabilityFactory {
  return (core) => {
    const desk = createApprovalDesk(core);
    const permissions = permissionRules(core, desk, options);
    const plan = planMode(core, desk);
    const questions = userQuestions(core, desk);
    return {
      name: 'approvals',
      tools: (session) => [...plan.tools(session), ...questions.tools(session)],
      authorize: async (session, call) => {
        const authorization = await permissions.authorize(session, call);
        if (!authorization.allowed) options.onDenied?.(call, authorization.message);
        return authorization;
      },
      authorizeConnection: permissions.authorizeConnection,
      readDenials: permissions.readDenials,
      systemPrompt: permissions.systemPrompt,
      facts: async (session: SessionHandle) => [...(await permissions.facts(session)), ...plan.facts(session)],
      onStateChanged: permissions.onStateChanged,
      waitingFor: (sessionId) => desk.waitingFor(sessionId),
      onUndo: plan.onUndo,
      commands: { ...permissions.commands, ...grantCommands(core), ...plan.commands, ...questions.commands },
      close: async () => desk.cancelAll(),
    };
  };
}

export const approvalsCapability: CapabilityFactory = createApprovalsCapability();

/** The list with the approvals capability given these options (a host's own run rules). */
export function withApprovalsOptions(capabilities: readonly CapabilityFactory[], options: ApprovalsOptions): CapabilityFactory[] {
  const replacement = createApprovalsCapability(options);
  return capabilities.includes(approvalsCapability) ? capabilities.map((f) => (f === approvalsCapability ? replacement : f)) : [replacement, ...capabilities];
}
