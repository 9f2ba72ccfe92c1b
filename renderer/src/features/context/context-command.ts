import { report } from '../../actions/attempt';
import { compactSession, undoTurns } from '../../actions/context';
import { parseContextCommand } from './parse-command';

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
