import { memo, useState } from 'react';
import type { AgentInfo } from '#protocol';
import { stopAgents } from '../../actions/agents';
import { Icon } from '../../components/Icon';
import { useAgentLive, useAgents } from '../../stores/agents';
import { requestsOf, useApprovals } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import type { ToolItem } from '../../stores/transcript';
import { Markdown } from '../conversation/Markdown';
import { ToolHeader } from '../tools/ToolHeader';
import { AgentTranscript } from './AgentTranscript';
import { AgentFacts, StatusIcon } from './AgentStatus';
import './agents.css';

/** The card of an Agent call: the sub-agent's type, what it does, how it is going, its transcript and its answer. */
export const AgentCallCard = memo(function AgentCallCard({ item }: { item: ToolItem }) {
  const agent = useAgents((s) => {
    const id = s.order.findLast((agentId) => s.agents[agentId]!.callId === item.id && !s.agents[agentId]!.swarmId);
    return id ? s.agents[id] : undefined;
  });
  const display = item.display.kind === 'agent_call' ? item.display : null;
  const type = agent?.type ?? display?.agentName ?? 'agent';
  const description = agent?.description ?? (item.args as { description?: string } | null)?.description ?? item.description;
  const [open, setOpen] = useState(true);
  return (
    <section className={`tool-card agent-card tool-${item.status}`} role="group" aria-label={`Sub-agent ${type}: ${description}`}>
      <ToolHeader
        item={item}
        icon="agent"
        tool={type}
        subject={description}
        subjectText={description}
        meta={
          <>
            {display?.background ? <span className="agent-badge">background</span> : null}
            {agent ? <AgentLine agent={agent} /> : <span className="agent-facts">{item.status === 'error' ? 'Not started' : 'Starting…'}</span>}
          </>
        }
        // The sub-agent's own state (a background one runs on after its call returned), its elapsed time in the facts.
        outcome={agent ? <StatusIcon status={agent.status} /> : undefined}
        duration={!agent}
        expanded={open}
        onToggle={() => setOpen(!open)}
      />
      {!open ? null : agent ? (
        <AgentBody agent={agent} />
      ) : item.result?.isError ? (
        <pre className="tool-output tool-output-error">{item.result.output}</pre>
      ) : null}
    </section>
  );
});

function AgentLine({ agent }: { agent: AgentInfo }) {
  const live = useAgentLive((s) => s.activity[agent.agentId]);
  return <AgentFacts agent={agent} live={live} />;
}

/** Its live step, the transcript behind a toggle, Stop while it runs, and its final answer. */
export function AgentBody({ agent }: { agent: AgentInfo }) {
  const [open, setOpen] = useState(false);
  const live = useAgentLive((s) => s.activity[agent.agentId]?.line);
  const sessionId = useSessions((s) => s.currentId);
  const waiting = useApprovals((s) => requestsOf(s, sessionId).approvals.some((a) => a.agent?.agentId === agent.agentId));
  const running = agent.status === 'running';
  const line = waiting ? 'Waiting for your approval (below)' : live;
  return (
    <div className="agent-card-body">
      {running && line ? (
        <p className={`agent-activity${waiting ? ' agent-waiting' : ''}`} aria-live="polite">
          {line}
        </p>
      ) : null}
      <div className="agent-actions">
        <button type="button" className="button button-small" aria-expanded={open} onClick={() => setOpen(!open)}>
          <Icon name="chevron" size={12} className={`chevron${open ? ' chevron-open' : ''}`} /> {open ? 'Hide transcript' : 'Show transcript'}
        </button>
        {running ? (
          <button type="button" className="button button-small" onClick={() => void stopAgents({ agentId: agent.agentId })}>
            <Icon name="stop" size={12} /> Stop
          </button>
        ) : null}
        <span className="agent-id" title="agent_id (the model resumes it by this id)">
          {agent.agentId}
        </span>
      </div>
      {open ? <AgentTranscript agentId={agent.agentId} label={`Transcript of ${agent.type} sub-agent: ${agent.description}`} /> : null}
      {agent.result && !running && !open ? (
        <div className="agent-result">
          <h3>Final answer</h3>
          <Markdown text={agent.result} />
        </div>
      ) : null}
      {agent.error ? <p className="agent-error">{agent.error.message}</p> : null}
    </div>
  );
}
