import { Icon, Spinner } from '../../components/Icon';
import { useHistory } from '../../stores/history';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { formatTokens } from '../context/tokens';
import { type SidebarPlacement, toggleSidebar } from '../layout/window-size';
import { TasksButton } from '../tasks/TasksButton';

export function Header({ sidebar }: { sidebar: SidebarPlacement }) {
  const session = useSessions((s) => s.sessions.find((x) => x.id === s.currentId));
  const turnRunning = useTranscript((s) => s.runningTurn !== null);
  const compacting = useHistory((s) => s.compacting !== null);
  const running = turnRunning || compacting;
  const usage = useTranscript((s) => s.usage);
  return (
    <header className="main-header">
      {sidebar !== 'docked' ? (
        <button type="button" className="icon-button menu-button" aria-label="Show sidebar" aria-expanded={sidebar === 'drawer'} title="Sessions, Skills and Settings (Ctrl+B)" onClick={toggleSidebar}>
          <Icon name="menu" size={18} />
        </button>
      ) : null}
      <h1 className="session-heading">{session?.title ?? 'New session'}</h1>
      <div className="header-right">
        {running ? (
          <span className="status-pill">
            <Spinner size={10} /> Working
          </span>
        ) : null}
        <TasksButton />
        {usage ? (
          <span className="usage" title="Tokens used in this session (input / output)">
            {formatTokens(usage.inputTokens)} in · {formatTokens(usage.outputTokens)} out
          </span>
        ) : null}
      </div>
    </header>
  );
}
