import type { ApprovalAnswer, QuestionAnswer } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
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

/** "Always allow" with the rules the user edited; returns why they were refused (the editor shows it), or null. */
export async function alwaysAllow(requestId: string, rules: string[]): Promise<string | null> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) return null;
  try {
    const reply = await deft.answerApproval({ sessionId, requestId, answer: { decision: 'approve', scope: 'always', rules } });
    if (reply.warning) useUi.getState().showBanner({ message: reply.warning });
    return null;
  } catch (error) {
    return DeftError.from(error).detail;
  }
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
