import { useEffect, useRef, useState } from 'react';
import type { CronJobInfo, TaskInfo } from '#protocol';
import { formatBytes, formatDuration } from '#protocol/helpers/units';
import { Icon } from '../../components/Icon';
import { clearFinishedTasks, deleteCronJob, stopTask } from '../../actions/tasks';
import { STATUS_LABEL, formatNextFire, screenText } from './format';
import { OutputDialog } from './OutputDialog';
import { useTasks } from '../../stores/tasks';
import { useFollowTail } from './use-follow-tail';
import { useNow } from './use-now';

function lastLines(text: string, n: number): string {
  return text.split('\n').slice(-n).join('\n');
}

/** The newest lines of a task's output, following the tail unless the reader scrolled up. */
function TaskTail({ text }: { text: string }) {
  const { ref, onScroll } = useFollowTail<HTMLPreElement>(text);
  return (
    <pre className="task-tail" ref={ref} onScroll={onScroll} tabIndex={0} aria-label="Latest output">
      {text}
    </pre>
  );
}

function TaskRow({ task, now }: { task: TaskInfo; now: number }) {
  const [stopping, setStopping] = useState(false);
  const running = task.status === 'running';
  const elapsed = (running ? now : (task.endedAt ?? now)) - task.startedAt;
  return (
    <li className={`task-row task-${task.status}`} aria-label={`Task ${task.description}`}>
      <div className="task-line">
        <span className={`task-status status-${task.status}`}>{STATUS_LABEL[task.status] ?? task.status}</span>
        <span className="task-title" title={task.description}>
          {task.description}
        </span>
        <span className="task-elapsed" title={new Date(task.startedAt).toLocaleString()}>
          {formatDuration(elapsed)}
        </span>
      </div>
      <div className="task-command" title={`${task.command}\nin ${task.cwd}`}>
        <span className="task-id">{task.id}</span> $ {task.command}
      </div>
      {!running && task.reason ? <div className="task-reason">{task.reason}</div> : null}
      {task.tail ? <TaskTail text={lastLines(screenText(task.tail), 40)} /> : <div className="task-reason">No output yet.</div>}
      <div className="task-actions">
        <button type="button" className="button button-small" onClick={() => useTasks.getState().view(task.id)}>
          <Icon name="log" size={13} /> Open full output
        </button>
        <span className="task-size">{formatBytes(task.outputBytes)}</span>
        {running ? (
          <button
            type="button"
            className="button button-small button-stop"
            disabled={stopping}
            aria-label={`Stop ${task.description}`}
            onClick={() => {
              setStopping(true);
              void stopTask(task.id).finally(() => setStopping(false));
            }}
          >
            <Icon name="stop" size={12} /> {stopping ? 'Stopping…' : 'Stop'}
          </button>
        ) : (
          <button
            type="button"
            className="button button-small button-ghost"
            aria-label={`Clear ${task.description} from the list`}
            title="Clear from the list (its log stays on disk)"
            onClick={() => void clearFinishedTasks(task.id)}
          >
            Clear
          </button>
        )}
      </div>
    </li>
  );
}

function CronRow({ job, now }: { job: CronJobInfo; now: number }) {
  return (
    <li className="task-row" aria-label={`Scheduled prompt ${job.id}`}>
      <div className="task-line">
        <span className="task-status status-scheduled">{job.recurring ? 'Repeats' : 'Once'}</span>
        <span className="task-title" title={job.cron}>
          {job.humanSchedule}
        </span>
      </div>
      <div className="task-command">
        <span className="task-id">{job.id}</span> {job.cron}
      </div>
      <p className="cron-prompt">{job.prompt.length > 300 ? `${job.prompt.slice(0, 300)}…` : job.prompt}</p>
      <div className="task-actions">
        <span className="cron-next" title={job.nextFireAt ? new Date(job.nextFireAt).toLocaleString() : undefined}>
          Next: {formatNextFire(job.nextFireAt, now)}
        </span>
        <button type="button" className="button button-small" aria-label={`Delete scheduled prompt ${job.id}`} onClick={() => void deleteCronJob(job.id)}>
          <Icon name="trash" size={13} /> Delete
        </button>
      </div>
    </li>
  );
}

/** Every background task of the session and its scheduled prompts, with their controls. */
export function TasksPanel() {
  const open = useTasks((s) => s.panelOpen);
  const tasks = useTasks((s) => s.tasks);
  const cron = useTasks((s) => s.cron);
  const viewing = useTasks((s) => s.viewing);
  const now = useNow(open && (tasks.some((t) => t.status === 'running') || cron.length > 0));
  const ref = useRef<HTMLElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const state = useTasks.getState();
      if ((e.ctrlKey || e.metaKey) && e.key === '`') {
        e.preventDefault();
        state.setPanelOpen(!state.panelOpen);
      } else if (e.key === 'Escape' && state.panelOpen && !state.viewing) {
        // Only when focus is in the panel or nowhere (e.g. its Stop button just went away), not in the composer.
        const active = document.activeElement;
        if (!active || active === document.body || ref.current?.contains(active)) state.setPanelOpen(false);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.focus();
    return () => {
      // Closed with the focus in the panel (Escape, its × button): give it back rather than drop it on the page body.
      const active = document.activeElement;
      if (active && active !== document.body) return;
      if (previous?.isConnected && previous !== document.body) previous.focus();
      else window.dispatchEvent(new Event('deft:focus-composer'));
    };
  }, [open]);

  if (!open) return null;
  const running = tasks.filter((t) => t.status === 'running');
  const finished = tasks.filter((t) => t.status !== 'running');
  return (
    <aside id="tasks-panel" className="tasks-panel" aria-label="Tasks" tabIndex={-1} ref={ref}>
      <header className="tasks-header">
        <h2>Tasks</h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close tasks panel"
          title="Close (Esc)"
          onClick={() => useTasks.getState().setPanelOpen(false)}
        >
          ×
        </button>
      </header>
      <div className="tasks-scroll">
        <section aria-label="Background tasks">
          <div className="tasks-section-head">
            <h3 className="section-title">Background tasks {running.length ? `· ${running.length} running` : ''}</h3>
            {finished.length ? (
              <button type="button" className="button button-small button-ghost" onClick={() => void clearFinishedTasks()}>
                Clear finished ({finished.length})
              </button>
            ) : null}
          </div>
          {tasks.length === 0 ? (
            <p className="tasks-empty">No background tasks. Commands the agent starts with run_in_background, or that outlive their timeout, show up here.</p>
          ) : (
            <ul className="task-list">
              {[...running, ...finished].map((task) => (
                <TaskRow key={task.id} task={task} now={now} />
              ))}
            </ul>
          )}
        </section>
        <section aria-label="Scheduled prompts">
          <h3 className="section-title">Scheduled prompts</h3>
          {cron.length === 0 ? (
            <p className="tasks-empty">Nothing scheduled. Ask the agent to check something later or every morning, and it appears here.</p>
          ) : (
            <ul className="task-list">
              {cron.map((job) => (
                <CronRow key={job.id} job={job} now={now} />
              ))}
            </ul>
          )}
        </section>
      </div>
      {viewing ? <OutputDialog taskId={viewing} /> : null}
    </aside>
  );
}
