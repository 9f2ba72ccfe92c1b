import { sendPrompt } from '../../actions/sessions';
import { setPlanMode } from '../../actions/modes';
import { useModes } from '../../stores/modes';

/**
 * `/plan` in the composer: alone it toggles plan mode; `/plan <request>` turns plan mode on and sends
 * the request. Returns null for any other text.
 */
export function planCommand(text: string): { run: (running: boolean) => Promise<boolean> } | null {
  const match = /^\/plan(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const request = match[1]?.trim() ?? '';
  return {
    run: async (running) => {
      if (!request) return setPlanMode(!(useModes.getState().plan?.active ?? false));
      if (running) return false;
      if (!(await setPlanMode(true))) return false;
      return sendPrompt(request);
    },
  };
}
