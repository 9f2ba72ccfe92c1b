import { Icon } from '../../components/Icon';
import { runningCount, useTasks } from '../../stores/tasks';
import { useTasksSync } from './use-tasks-sync';
import './tasks.css';

/** The tasks toggle in the window header, with a badge counting running tasks. */
export function TasksButton() {
  useTasksSync();
  const running = useTasks(runningCount);
  const open = useTasks((s) => s.panelOpen);
  const scheduled = useTasks((s) => s.cron.length);
  const label = `Tasks${running ? ` (${running} running)` : ''}`;
  return (
    <button
      type="button"
      className={`tasks-toggle${open ? ' tasks-toggle-open' : ''}`}
      aria-label={label}
      aria-expanded={open}
      aria-controls="tasks-panel"
      title={`${label}${scheduled ? `, ${scheduled} scheduled` : ''} — Ctrl+\``}
      onClick={() => useTasks.getState().setPanelOpen(!open)}
    >
      <Icon name="terminal" size={15} />
      <span>Tasks</span>
      {running ? (
        <span className="tasks-badge" aria-hidden="true">
          {running}
        </span>
      ) : null}
    </button>
  );
}
