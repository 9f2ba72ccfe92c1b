import { memo, useState } from 'react';
import { Icon } from '../../components/Icon';
import { undoRewind } from '../../actions/checkpoints';
import { type RewindItem, useCheckpoints } from '../../stores/checkpoints';
import { plural } from './format';

const SCOPE: Record<RewindItem['result']['scope'], string> = { both: 'code and conversation', code: 'code', conversation: 'conversation' };

/** A rewind in the transcript: what it did, with Undo rewind while it can still be undone. */
export const RewindNotice = memo(function RewindNotice({ item }: { item: RewindItem }) {
  const { result } = item;
  const undoable = useCheckpoints((s) => s.undoable?.rewindId === result.rewindId);
  const [busy, setBusy] = useState(false);
  const files = result.restored.length + result.removed.length + result.broughtBack.length;
  const parts = [
    result.scope !== 'conversation' ? (files ? `${plural(files, 'file')} put back` : 'no file changed') : '',
    result.undoneTurns.length ? `${plural(result.undoneTurns.length, 'turn')} taken out of the conversation` : '',
    result.keptOutside.length ? `${plural(result.keptOutside.length, 'file')} changed outside this session kept` : '',
    result.notCaptured.length ? `${plural(result.notCaptured.length, 'file')} not captured left as they are` : '',
    result.problems.length ? `${plural(result.problems.length, 'file')} could not be restored (${result.problems.map((p) => p.path).join(', ')})` : '',
  ].filter(Boolean);
  return (
    <div className={`notice rewind-notice${item.undone ? ' rewind-notice-undone' : ''}`} role="status" aria-label="Rewind">
      <Icon name="undo" size={14} />
      <span>
        {item.undone ? 'Undone: ' : ''}Rewound {SCOPE[result.scope]} to just before {result.index ? `prompt ${result.index}` : 'a turn'}: {parts.join('; ')}.
      </span>
      {undoable && !item.undone ? (
        <button
          type="button"
          className="button button-ghost"
          disabled={busy}
          onClick={() => {
            setBusy(true);
            void undoRewind().finally(() => setBusy(false));
          }}
        >
          Undo rewind
        </button>
      ) : null}
    </div>
  );
});
