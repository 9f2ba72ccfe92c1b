import type { PermissionMode } from '#protocol';
import { deft } from '../bridge';
import { inSession } from './sessions';

/** Switch the session's permission mode (a new session when none is open); the model is told. */
export function setPermissionMode(mode: PermissionMode): Promise<void> {
  return inSession(async (sessionId) => {
    await deft.setPermissionMode({ sessionId, mode });
  });
}

/** Turn plan mode on or off. Returns whether it was switched. */
export function setPlanMode(active: boolean): Promise<boolean> {
  return inSession(async (sessionId) => {
    await deft.setPlanMode({ sessionId, active });
    return true;
  }, false);
}
