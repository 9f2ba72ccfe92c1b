import { Spinner } from '../../components/Icon';
import { useHistory } from '../../stores/history';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { formatTokens } from '../context/tokens';
import { TasksButton } from '../tasks/TasksButton';

export function Header() {
  const session = useSessions((s) => s.sessions.find((x) => x.id === s.currentId));
  const turnRunning = useTranscript((s) => s.runningTurn !== null);
  const compacting = useHistory((s) => s.compacting !== null);
  const running = turnRunning || compacting;
  const usage = useTranscript((s) => s.usage);
  return (
    <header className="main-header">
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
