import { deft } from '../bridge';
import { inOpenSession } from './sessions';

// Messages typed while a turn runs. The queue itself is the core's: the store follows its events.

/** Queue a message for the next turn (`steer`: into the running turn at its next step). Resolves to whether it was taken. */
export function queuePrompt(text: string, steer: boolean): Promise<boolean> {
  return inOpenSession(async (sessionId) => {
    await deft.queuePrompt({ sessionId, text, ...(steer ? { steer } : {}) });
    return true;
  }, false);
}

export function editQueuedPrompt(queueId: string, text: string): Promise<boolean> {
  return inOpenSession(async (sessionId) => {
    await deft.editQueuedPrompt({ sessionId, queueId, text });
    return true;
  }, false);
}

export function removeQueuedPrompt(queueId: string): Promise<void> {
  return inOpenSession(async (sessionId) => void (await deft.removeQueuedPrompt({ sessionId, queueId })));
}

/** Send a waiting message now: a steer while a turn runs, else a turn of its own. */
export function sendQueuedPrompt(queueId: string): Promise<void> {
  return inOpenSession(async (sessionId) => void (await deft.sendQueuedPrompt({ sessionId, queueId })));
}
