import { Spinner } from '../../components/Icon';
import { useSessions } from '../../stores/sessions';
import { formatTokens } from '../context/history';
import { TasksButton } from '../tasks/TasksButton';

export function Header() {
  const session = useSessions((s) => s.sessions.find((x) => x.id === s.currentId));
  const running = useSessions((s) => s.transcript.runningTurn !== null || s.transcript.history.compacting !== null);
  const usage = useSessions((s) => s.transcript.usage);
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
