import type { ApprovalAnswer, GoalAction, PermissionMode, QuestionAnswer } from '../../../protocol';
import { deft } from '../bridge';
import { ensureSession, report } from './actions';
import { usePermissions } from './permissions';
import { useSessions } from './sessions';
import { useUi } from './ui';

// Commands for the user-in-control features (permissions, approvals, plan mode, questions, goals).


/** Trust the workspace, so its own settings files may allow tools and set the default mode. */
export async function trustWorkspace(): Promise<void> {
  try {
    const sessionId = useSessions.getState().currentId;
    const { permissions } = await deft.trustWorkspace(sessionId ? { sessionId } : {});
    usePermissions.getState().setRules(permissions);
  } catch (error) {
    report(error);
  }
}

export async function loadPermissions(): Promise<void> {
  try {
    const { mode, permissions } = await deft.getPermissions({});
    usePermissions.getState().setDefaultMode(mode);
    usePermissions.getState().setRules(permissions);
  } catch (error) {
    report(error);
  }
}

export async function setPermissionMode(mode: PermissionMode): Promise<void> {
  const sessionId = await ensureSession();
  if (!sessionId) return;
  try {
    await deft.setPermissionMode({ sessionId, mode });
  } catch (error) {
    report(error);
  }
}

export async function setPlanMode(active: boolean): Promise<boolean> {
  const sessionId = await ensureSession();
  if (!sessionId) return false;
  try {
    await deft.setPlanMode({ sessionId, active });
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

export async function answerApproval(requestId: string, answer: ApprovalAnswer): Promise<void> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) return;
  try {
    const reply = await deft.answerApproval({ sessionId, requestId, answer });
    if (reply.warning) useUi.getState().showBanner({ message: reply.warning });
  } catch (error) {
    report(error);
  }
}

/** Returns the error message when the answers were refused (shown in the dialog). */
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

export async function setGoalStatus(action: GoalAction): Promise<void> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) return;
  try {
    await deft.setGoalStatus({ sessionId, action });
  } catch (error) {
    report(error);
  }
}
