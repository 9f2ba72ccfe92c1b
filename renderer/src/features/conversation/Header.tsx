import type { Usage } from '#protocol';
import { Icon, Spinner } from '../../components/Icon';
import { useHistory } from '../../stores/history';
import { promptRowId, rowById } from '../../stores/rows';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { formatTokens } from '#protocol/helpers/units';
import { type SidebarPlacement, toggleSidebar } from '../layout/window-size';
import { TasksButton } from '../tasks/TasksButton';
import { useNow } from '../tasks/use-now';
import { ContextMeter } from '../usage/ContextMeter';
import { ChangesButton } from '../worktrees/ChangesView';
import { CostBadge } from '../usage/CostBadge';
import { ConnectionChip } from './ConnectionChip';
import './conversation.css';

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

/** "Working · 12 s": how long the running turn has taken so far. */
function WorkingPill() {
  const turnId = useTranscript((s) => s.runningTurn);
  const startedAt = useTranscript((s) => {
    const prompt = s.runningTurn ? rowById(s.items, promptRowId(s.runningTurn)) : undefined;
    return prompt?.kind === 'user' ? prompt.at : undefined;
  });
  const compacting = useHistory((s) => s.compacting !== null);
  const now = useNow(turnId !== null);
  if (!turnId && !compacting) return null;
  const seconds = startedAt ? Math.max(0, Math.round((now - startedAt) / 1000)) : null;
  const elapsed = seconds === null ? '' : seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return (
    <span className="status-pill" role="status">
      <Spinner size={10} /> {compacting ? 'Compacting' : 'Working'}
      {elapsed ? <span className="status-elapsed"> · {elapsed}</span> : null}
    </span>
  );
}

export function Header({ sidebar }: { sidebar: SidebarPlacement }) {
  const session = useSessions((s) => s.sessions.find((x) => x.id === s.currentId));
  const usage = useTranscript((s) => s.usage);
  return (
    <header className="main-header">
      {sidebar !== 'docked' ? (
        <button
          type="button"
          className="icon-button menu-button"
          aria-label="Show sidebar"
          aria-expanded={sidebar === 'drawer'}
          title="Sessions, Skills and Settings (Ctrl+B)"
          onClick={toggleSidebar}
        >
          <Icon name="menu" size={18} />
        </button>
      ) : null}
      <h1 className="session-heading" title={session?.title}>
        {session?.title ?? 'New session'}
      </h1>
      <div className="header-right">
        <ConnectionChip />
        <WorkingPill />
        <ChangesButton />
        <TasksButton />
        <ContextMeter />
        {usage ? (
          <span className="usage" title={usageTitle(usage)}>
            {formatTokens(usage.inputTokens)} in{usage.cachedTokens !== undefined ? ` (${formatTokens(usage.cachedTokens)} cached)` : ''} ·{' '}
            {formatTokens(usage.outputTokens)} out
          </span>
        ) : null}
        <CostBadge />
      </div>
    </header>
  );
}
