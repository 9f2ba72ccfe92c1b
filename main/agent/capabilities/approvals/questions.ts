import { CommandError } from '#contract/errors';
import type { CoreContext, Capability, SessionHandle } from '#contract/capability';
import type { ApprovalDesk } from './requests';
import { askUserQuestionTool } from './tools/ask-user-question/ask-user-question';
import { collectAnswers } from './answers';

/** AskUserQuestion: the model asks, the window shows a dialog, the answers (or a dismissal) go back as JSON. Not offered headless. */
export function userQuestions(core: CoreContext, hub: ApprovalDesk) {
  return {
    tools: (session: SessionHandle) => (core.host.canAsk ? [askUserQuestionTool(session, hub)] : []),
    commands: {
      answerQuestion: async ({ sessionId, requestId, answers, dismissed }) => {
        await core.session(sessionId);
        const request = hub.questions.get(sessionId, requestId);
        if (!request) throw new CommandError('not_found', 'These questions are no longer waiting: they were answered already, or the turn stopped.');
        if (dismissed) {
          hub.questions.settle(sessionId, requestId, { dismissed: true });
          return { ok: true as const };
        }
        let collected: Record<string, string>;
        try {
          collected = collectAnswers(request.questions, answers);
        } catch (error) {
          throw new CommandError('invalid_request', (error as Error).message);
        }
        hub.questions.settle(sessionId, requestId, { dismissed: false, answers: collected });
        return { ok: true as const };
      },
    },
  } satisfies Omit<Capability, 'name'>;
}
