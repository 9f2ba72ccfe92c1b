import { memo, useState } from 'react';
import type { AgentInfo } from '#protocol';
import { stopAgents } from '../../actions/agents';
import { Dialog } from '../../components/Dialog';
import { Icon } from '../../components/Icon';
import { ToolHeader } from '../tools/ToolHeader';
import { type SwarmInfo, useAgentLive, useAgents } from '../../stores/agents';
import type { ToolItem } from '../../stores/transcript';
import { AgentBody } from './AgentCallCard';
import { AgentFacts, StatusIcon, statusWord } from './AgentStatus';
import './agents.css';

type ItemState = AgentInfo['status'] | 'queued';

/** The card of an AgentSwarm call: progress, every item with its state (open one for its transcript), Stop for all. */
export const SwarmCard = memo(function SwarmCard({ item }: { item: ToolItem }) {
  const display = item.display.kind === 'agent_swarm' ? item.display : null;
  const swarm = useAgents((s) => Object.values(s.swarms).find((w) => w.callId === item.id));
  const agents = useAgents((s) => s.agents);
  const order = useAgents((s) => s.order);
  const [openAgent, setOpenAgent] = useState<string | null>(null);
  const members = order.map((id) => agents[id]!).filter((a) => a.callId === item.id && a.swarmId !== undefined);
  const byItem = new Map(members.map((a) => [a.item, a]));
  const items = display?.items ?? [];
  const running = item.status === 'running';
  const opened = openAgent ? agents[openAgent] : undefined;
  const [open, setOpen] = useState(true);
  const description = display?.description ?? item.description;
  return (
    <section className={`tool-card agent-card swarm-card tool-${item.status}`} role="group" aria-label={`Swarm: ${description}`}>
      <ToolHeader
        item={item}
        icon="agent"
        tool={`${display?.agentName ?? 'agent'} swarm`}
        subject={description}
        subjectText={description}
        meta={<SwarmCounts swarm={swarm} total={items.length} />}
        expanded={open}
        onToggle={() => setOpen(!open)}
      />
      {open && swarm ? <Progress swarm={swarm} /> : null}
      {open ? (
        <ul className="swarm-grid" aria-label="Swarm items">
          {items.map((name, index) => {
            const agent = byItem.get(name);
            const state: ItemState = agent?.status ?? (running ? 'queued' : 'cancelled');
            return (
              <li key={`${index}:${name}`}>
                <button
                  type="button"
                  className={`swarm-item swarm-item-${state}`}
                  disabled={!agent}
                  aria-label={`${name}: ${statusWord(state)}`}
                  title={agent ? `Open the transcript of ${name}` : 'Not started yet'}
                  onClick={() => agent && setOpenAgent(agent.agentId)}
                >
                  <StatusIcon status={state} />
                  <span className="swarm-item-name">{name}</span>
                  {agent?.status === 'running' ? <LiveLine agent={agent} /> : null}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      {open && running && swarm ? (
        <div className="agent-actions">
          <button type="button" className="button button-small" onClick={() => void stopAgents({ swarmId: swarm.swarmId })}>
            <Icon name="stop" size={12} /> Stop swarm
          </button>
          <span className="agent-note">Finished results are kept.</span>
        </div>
      ) : null}
      {opened ? (
        <Dialog title={`${opened.item ?? opened.description} — ${opened.type} sub-agent`} onClose={() => setOpenAgent(null)} wide>
          <OpenedAgent agent={opened} />
        </Dialog>
      ) : null}
    </section>
  );
});

function OpenedAgent({ agent }: { agent: AgentInfo }) {
  const live = useAgentLive((s) => s.activity[agent.agentId]);
  return (
    <div className="swarm-agent">
      <p className="swarm-agent-facts">
        <AgentFacts agent={agent} live={live} />
      </p>
      <AgentBody agent={agent} />
    </div>
  );
}

/** A running item's current step: its number and what it does now ("Step 3 · Read: notes.txt"). */
function LiveLine({ agent }: { agent: AgentInfo }) {
  const line = useAgentLive((s) => s.activity[agent.agentId]?.line);
  const step = agent.steps ? `Step ${agent.steps}` : null;
  const text = [step, line].filter(Boolean).join(' · ');
  return text ? <span className="swarm-item-line">{text}</span> : null;
}

function SwarmCounts({ swarm, total }: { swarm: SwarmInfo | undefined; total: number }) {
  if (!swarm) return <span className="agent-facts">{total} items</span>;
  const p = swarm.progress;
  return (
    <span className="agent-facts" aria-label="Swarm progress">
      <span>
        {p.completed + p.failed + p.aborted}/{p.total} done
      </span>
      {p.failed ? <span className="bad">{p.failed} failed</span> : null}
      {p.running ? <span>{p.running} running</span> : null}
      {p.queued ? <span>{p.queued} queued</span> : null}
      {p.aborted ? <span>{p.aborted} stopped</span> : null}
    </span>
  );
}

function Progress({ swarm }: { swarm: SwarmInfo }) {
  const p = swarm.progress;
  const done = p.completed + p.failed + p.aborted;
  return <progress className="swarm-progress" max={p.total} value={done} aria-label={`${done} of ${p.total} items done`} />;
}
