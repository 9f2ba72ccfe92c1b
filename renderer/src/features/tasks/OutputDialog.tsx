import { useCallback, useEffect, useRef, useState } from 'react';
import { formatBytes } from '#protocol/helpers/units';
import { Dialog } from '../../components/Dialog';
import { readTaskOutput } from '../../actions/tasks';
import { screenText } from './format';
import { useTasks } from '../../stores/tasks';

interface Slice {
  text: string;
  offset: number;
  size: number;
  path: string;
}

/**
 * A task's full output log (or a finished command's): the last MiB first, earlier parts on request,
 * refreshed while it runs.
 */
export function OutputDialog({ taskId, title, onClose }: { taskId: string; title?: string; onClose?: () => void }) {
  const task = useTasks((s) => s.tasks.find((t) => t.id === taskId));
  const [slice, setSlice] = useState<Slice | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  const close = onClose ?? (() => useTasks.getState().view(null));

  const load = useCallback(async () => {
    const result = await readTaskOutput(taskId);
    if (result) setSlice({ text: result.text, offset: result.offset, size: result.size, path: result.path });
  }, [taskId]);

  useEffect(() => {
    void load();
  }, [load, task?.outputBytes, task?.status]);
  useEffect(() => {
    const el = pre.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [slice?.size]);

  const loadEarlier = async () => {
    if (!slice || slice.offset === 0) return;
    const from = Math.max(0, slice.offset - 1024 * 1024);
    const earlier = await readTaskOutput(taskId, from, slice.offset - from);
    if (earlier) setSlice({ ...slice, text: earlier.text + slice.text, offset: from });
  };

  return (
    <Dialog
      title={title ?? `Output of ${task?.description ?? taskId}`}
      onClose={close}
      wide
      footer={
        <button type="button" className="button" onClick={close}>
          Close
        </button>
      }
    >
      <div className="output-meta">
        <span className="task-id">{taskId}</span>
        {slice ? <span>{formatBytes(slice.size)}</span> : null}
        {slice ? (
          <span className="output-path" title="The full log on disk">
            {slice.path}
          </span>
        ) : null}
      </div>
      {slice && slice.offset > 0 ? (
        <button type="button" className="button button-small" onClick={() => void loadEarlier()}>
          Load earlier output ({formatBytes(slice.offset)} more)
        </button>
      ) : null}
      <pre className="output-full" ref={pre} tabIndex={0} aria-label="Task output">
        {slice ? screenText(slice.text) || '(no output)' : 'Loading…'}
      </pre>
    </Dialog>
  );
}
