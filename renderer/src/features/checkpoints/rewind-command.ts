import { type CheckpointDialog, useCheckpointDialog } from '../../stores/checkpoints';

const COMMANDS: Record<string, NonNullable<CheckpointDialog>> = { rewind: { kind: 'picker' }, changes: { kind: 'review' } };

/**
 * `/rewind` in the composer opens the picker of prompts; `/changes` opens the review pane of the whole
 * session. Returns null for any other text.
 */
export function rewindCommand(text: string): { run: (running: boolean) => Promise<boolean> } | null {
  const dialog = COMMANDS[/^\/(rewind|changes)\s*$/.exec(text.trim())?.[1] ?? ''];
  if (!dialog) return null;
  return {
    run: async (running) => {
      if (running && dialog.kind === 'picker') return false;
      useCheckpointDialog.getState().show(dialog);
      return true;
    },
  };
}
