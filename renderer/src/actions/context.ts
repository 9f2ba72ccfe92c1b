import { deft } from '../bridge';
import { useSessions } from '../stores/sessions';
import { attempt } from './attempt';

/** Run a context command on the open session; failures (and no open session) go to the banner. */
function onOpenSession(none: string, run: (sessionId: string) => Promise<unknown>): Promise<boolean> {
  return attempt(async () => {
    const sessionId = useSessions.getState().currentId;
    if (!sessionId) throw new Error(`[invalid_request] ${none}`);
    await run(sessionId);
    return true;
  }, false);
}

/** Compact the open session now; `instructions` tell the handoff note what to keep in particular. */
export function compactSession(instructions: string): Promise<boolean> {
  return onOpenSession('There is nothing to compact yet: start a conversation first.', (sessionId) =>
    deft.compactSession({ sessionId, ...(instructions ? { instructions } : {}) }),
  );
}

/** Undo the last `count` turns of the open session (files are not restored). */
export function undoTurns(count: number): Promise<boolean> {
  return onOpenSession('There is nothing to undo: no conversation is open.', (sessionId) => deft.undoTurns({ sessionId, count }));
}
