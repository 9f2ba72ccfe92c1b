import type { AgentInfo } from '#protocol';
import { formatDuration, formatTokens } from '#protocol/helpers/units';
import { Icon, Spinner } from '../../components/Icon';
import { type AgentActivity } from '../../stores/agents';
import { useNow } from '../tasks/use-now';

const STATUS_WORDS: Record<AgentInfo['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Stopped',
  timed_out: 'Timed out',
};

export function statusWord(status: AgentInfo['status']): string {
  return STATUS_WORDS[status];
}

export function StatusIcon({ status }: { status: AgentInfo['status'] }) {
  if (status === 'running' || status === 'queued') return <Spinner size={12} />;
  if (status === 'completed') return <Icon name="check" size={14} className="ok" />;
  return <Icon name="failed" size={14} className="bad" />;
}

/** Status, elapsed time, steps and tokens of one sub-agent: live while it runs, else as its card was saved. */
export function AgentFacts({ agent, live }: { agent: AgentInfo; live: AgentActivity | undefined }) {
  const running = agent.status === 'running';
  const now = useNow(running);
  const elapsed = (agent.endedAt ?? (running ? now : agent.startedAt)) - agent.startedAt;
  const used = running && live ? live.tokens : agent.usage.inputTokens + agent.usage.outputTokens;
  const steps = running && live ? live.steps : agent.steps;
  return (
    <span className="agent-facts">
      <span className={`agent-status agent-status-${agent.status}`}>{statusWord(agent.status)}</span>
      <span>{formatDuration(Math.max(0, elapsed))}</span>
      <span>
        {steps} step{steps === 1 ? '' : 's'}
      </span>
      <span>{formatTokens(used)} tokens</span>
    </span>
  );
}
