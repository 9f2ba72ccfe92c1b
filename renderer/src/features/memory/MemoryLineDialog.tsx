import { useEffect, useState } from 'react';
import type { MemoryTarget } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { addMemoryLine, loadMemory } from '../../actions/memory';
import { useMemory } from '../../stores/memory';

const TARGET_TEXT: Record<MemoryTarget, string> = { project: 'The project’s file', user: 'Your own file (every project)' };

/** After `# line` in the composer: which instruction file the line goes to. */
export function MemoryLineDialog() {
  const line = useMemory((s) => s.pendingLine);
  const targets = useMemory((s) => s.overview?.targets);
  const [target, setTarget] = useState<MemoryTarget>('project');
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (line !== null && !targets) void loadMemory();
  }, [line, targets]);
  if (line === null) return null;
  const close = () => useMemory.getState().setPendingLine(null);
  const save = async () => {
    setSaving(true);
    const added = await addMemoryLine(target, line);
    setSaving(false);
    if (added) close();
  };
  return (
    <Dialog
      title="Add to memory"
      onClose={close}
      initialFocus="input[type=radio]:checked"
      footer={
        <>
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          <button type="button" className="button button-primary" disabled={saving} onClick={() => void save()}>
            Add the line
          </button>
        </>
      }
    >
      <p className="memory-line">- {line}</p>
      <fieldset className="memory-targets">
        <legend>Which file?</legend>
        {(targets ?? []).map((t) => (
          <label key={t.target} className="memory-toggle">
            <input type="radio" name="memory-target" value={t.target} checked={target === t.target} onChange={() => setTarget(t.target)} />
            <span>
              {TARGET_TEXT[t.target]}: <code>{t.display}</code>
              {t.exists ? '' : ' (created)'}
            </span>
          </label>
        ))}
      </fieldset>
    </Dialog>
  );
}
