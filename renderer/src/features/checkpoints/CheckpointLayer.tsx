import { useCheckpointDialog } from '../../stores/checkpoints';
import { ForkDialog } from './ForkDialog';
import { ReviewPane } from './ReviewPane';
import { RewindDialog } from './RewindDialog';
import { RewindPicker } from './RewindPicker';
import './checkpoints.css';

/** Whichever checkpoint dialog is open: a rewind preview, a fork, the /rewind picker, or the review pane. */
export function CheckpointLayer() {
  const dialog = useCheckpointDialog((s) => s.dialog);
  const close = () => useCheckpointDialog.getState().show(null);
  if (!dialog) return null;
  if (dialog.kind === 'rewind') return <RewindDialog key={dialog.turnId} turnId={dialog.turnId} text={dialog.text} onClose={close} />;
  if (dialog.kind === 'fork') return <ForkDialog key={dialog.turnId} turnId={dialog.turnId} text={dialog.text} onClose={close} />;
  if (dialog.kind === 'picker')
    return <RewindPicker onClose={close} onPick={(p) => useCheckpointDialog.getState().show({ kind: 'rewind', turnId: p.turnId, text: p.text })} />;
  return <ReviewPane {...(dialog.turnId ? { turnId: dialog.turnId } : {})} {...(dialog.path ? { path: dialog.path } : {})} onClose={close} />;
}
