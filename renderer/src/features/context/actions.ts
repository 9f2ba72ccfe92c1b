import { deft } from '../../bridge';
import { report } from '../../stores/actions';
import { useSessions } from '../../stores/sessions';
import { parseContextCommand } from './context-command';

/** Compact the open session now; `instructions` tell the handoff note what to keep in particular. */
export async function compactSession(instructions: string): Promise<boolean> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) {
    report(new Error('[invalid_request] There is nothing to compact yet: start a conversation first.'));
    return false;
  }
  try {
    await deft.compactSession({ sessionId, ...(instructions ? { instructions } : {}) });
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

/** Undo the last `count` turns of the open session (files are not restored). */
export async function undoTurns(count: number): Promise<boolean> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) {
    report(new Error('[invalid_request] There is nothing to undo: no conversation is open.'));
    return false;
  }
  try {
    await deft.undoTurns({ sessionId, count });
    return true;
  } catch (error) {
    report(error);
    return false;
  }
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
