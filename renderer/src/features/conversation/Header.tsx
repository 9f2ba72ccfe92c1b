import type { Usage } from '../../../../protocol';
import { Spinner } from '../../components/Icon';
import { useHistory } from '../../stores/history';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { formatTokens } from '../context/tokens';
import { TasksButton } from '../tasks/TasksButton';

/** The header's tooltip: what the figures mean, and the cache's share where the provider reports it. */
function usageTitle(usage: Usage): string {
  const lines = ['Tokens used in this session: input (what the model read) / output (what it wrote).'];
  if (usage.cachedTokens !== undefined) {
    const share = usage.inputTokens ? Math.round((usage.cachedTokens / usage.inputTokens) * 100) : 0;
    lines.push(`${usage.cachedTokens.toLocaleString('en-US')} input tokens (${share} %) were read from the provider's prompt cache.`);
  }
  if (usage.cacheWriteTokens !== undefined) lines.push(`${usage.cacheWriteTokens.toLocaleString('en-US')} input tokens were written to the cache.`);
  return lines.join('\n');
}

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
          <span className="usage" title={usageTitle(usage)}>
            {formatTokens(usage.inputTokens)} in{usage.cachedTokens !== undefined ? ` (${formatTokens(usage.cachedTokens)} cached)` : ''} · {formatTokens(usage.outputTokens)} out
          </span>
        ) : null}
      </div>
    </header>
  );
}
