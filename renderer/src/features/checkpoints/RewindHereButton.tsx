import { Icon } from '../../components/Icon';
import { useCheckpointDialog } from '../../stores/checkpoints';
import { useTranscript } from '../../stores/transcript';

/** On a prompt in the transcript (shown on hover and focus): rewind to just before it. */
export function RewindHereButton({ turnId, text }: { turnId: string; text: string }) {
  const running = useTranscript((s) => s.runningTurn !== null);
  if (running) return null;
  return (
    <button
      type="button"
      className="rewind-here"
      title="Rewind code and/or conversation to just before this prompt"
      onClick={() => useCheckpointDialog.getState().show({ kind: 'rewind', turnId, text })}
    >
      <Icon name="undo" size={12} /> Rewind here
    </button>
  );
}

/** On any message (shown on hover and focus): fork a new session with the conversation up to the end of its turn. */
export function ForkHereButton({ turnId, text }: { turnId: string; text: string }) {
  const runningHere = useTranscript((s) => s.runningTurn === turnId);
  return (
    <button
      type="button"
      className="rewind-here"
      title={runningHere ? 'This turn is still running: fork it once it ends' : 'A new session with the conversation up to the end of this turn'}
      disabled={runningHere}
      onClick={() => useCheckpointDialog.getState().show({ kind: 'fork', turnId, text })}
    >
      <Icon name="fork" size={12} /> Fork from here
    </button>
  );
}
