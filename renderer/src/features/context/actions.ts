import { deft } from '../../bridge';
import { report } from '../../stores/actions';
import { useSessions } from '../../stores/sessions';
import { parseContextCommand } from './context-command';

/** Run a context command on the open session; failures (and no open session) go to the banner. */
async function onOpenSession(none: string, run: (sessionId: string) => Promise<unknown>): Promise<boolean> {
  const sessionId = useSessions.getState().currentId;
  try {
    if (!sessionId) throw new Error(`[invalid_request] ${none}`);
    await run(sessionId);
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

/** Compact the open session now; `instructions` tell the handoff note what to keep in particular. */
export function compactSession(instructions: string): Promise<boolean> {
  return onOpenSession('There is nothing to compact yet: start a conversation first.', (sessionId) => deft.compactSession({ sessionId, ...(instructions ? { instructions } : {}) }));
}

/** Undo the last `count` turns of the open session (files are not restored). */
export function undoTurns(count: number): Promise<boolean> {
  return onOpenSession('There is nothing to undo: no conversation is open.', (sessionId) => deft.undoTurns({ sessionId, count }));
}

/** The composer's context commands, shaped like its /plan command: `run` resolves to whether the text was used. */
export function contextCommand(text: string): { run: (running: boolean) => Promise<boolean> } | null {
  const command = parseContextCommand(text);
  if (!command) return null;
  return {
    run: async () => {
      if (command.kind === 'invalid') {
        report(new Error(`[invalid_request] ${command.message}`));
        return false;
      }
      return command.kind === 'compact' ? compactSession(command.instructions) : undoTurns(command.count);
    },
  };
}
