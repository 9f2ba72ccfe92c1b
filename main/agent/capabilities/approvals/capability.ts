import type { CapabilityFactory, SessionHandle } from '#contract/capability';
import { permissionRules } from './permissions';
import { planMode } from './plan';
import { userQuestions } from './questions';
import { createApprovalDesk } from './requests';

/**
 * Approvals: the user decides what the agent may do. Permission modes and rules decide on every call
 * and ask the user when needed; plan mode (investigate, write a plan, have it reviewed); questions the
 * model puts to the user. The three share one desk of rules and waiting requests.
 */
export const approvalsCapability: CapabilityFactory = (core) => {
  const desk = createApprovalDesk(core);
  const permissions = permissionRules(core, desk);
  const plan = planMode(core, desk);
  const questions = userQuestions(core, desk);
  return {
    name: 'approvals',
    tools: (session) => [...plan.tools(session), ...questions.tools(session)],
    authorize: permissions.authorize,
    authorizeConnection: permissions.authorizeConnection,
    readDenials: permissions.readDenials,
    systemPrompt: permissions.systemPrompt,
    facts: async (session: SessionHandle) => [...(await permissions.facts(session)), ...plan.facts(session)],
    onStateChanged: permissions.onStateChanged,
    waitingFor: (sessionId) => desk.waitingFor(sessionId),
    onUndo: plan.onUndo,
    commands: { ...permissions.commands, ...plan.commands, ...questions.commands },
    close: async () => desk.cancelAll(),
  };
};
