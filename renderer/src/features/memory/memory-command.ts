import { openMemory } from '../../actions/memory';
import { useMemory } from '../../stores/memory';
import { memoryLine } from './memory-line';

/**
 * The composer's memory commands, shaped like its /plan command: `/memory` opens the Memory page; `# text` asks which
 * instruction file the line goes to. `run` resolves to whether the text was used.
 */
export function memoryCommand(text: string): { run: (running: boolean) => Promise<boolean> } | null {
  if (/^\/memory\s*$/.test(text.trim())) {
    return {
      run: async () => {
        openMemory();
        return true;
      },
    };
  }
  const line = memoryLine(text);
  if (line === null) return null;
  return {
    run: async () => {
      useMemory.getState().setPendingLine(line);
      return true;
    },
  };
}
