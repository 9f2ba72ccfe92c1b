import type { GoalAction } from '#protocol';
import { deft } from '../bridge';
import { inOpenSession } from './sessions';

/** Pause, resume or cancel the open session's goal. */
export function setGoalStatus(action: GoalAction): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.setGoalStatus({ sessionId, action });
  });
}
