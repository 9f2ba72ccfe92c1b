import type { ApprovalAnswer, QuestionAnswer } from '../../../protocol';
import { deft } from '../bridge';
import { useSessions } from '../stores/sessions';
import { useUi } from '../stores/ui';
import { inOpenSession } from './sessions';

export function answerApproval(requestId: string, answer: ApprovalAnswer): Promise<void> {
  return inOpenSession(async (sessionId) => {
    const reply = await deft.answerApproval({ sessionId, requestId, answer });
    if (reply.warning) useUi.getState().showBanner({ message: reply.warning });
  });
}

/** Returns the error message when the answers were refused (the dialog shows it, not the banner). */
export async function answerQuestion(requestId: string, answers: QuestionAnswer[], dismissed: boolean): Promise<string | null> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) return null;
  try {
    await deft.answerQuestion({ sessionId, requestId, answers, dismissed });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^\[[a-z_]+\] /, '') : String(error);
  }
}
