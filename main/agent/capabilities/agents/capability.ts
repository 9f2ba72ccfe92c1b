import { CommandError } from '#contract/errors';
import type { CapabilityFactory } from '#contract/capability';
import type { TaskKindAdapter } from '#contract/tasks';
import { releaseIsolations } from './isolation';
import { readCard } from './runner';
import { AgentsService } from './service';
import type { SwarmLimits } from './swarm-scheduler';
import { agentTool } from './tools/agent/agent';
import { agentSwarmTool } from './tools/agent-swarm/agent-swarm';
import { mergeAgentWorkTool } from './tools/merge-agent-work/merge-agent-work';

const agentTasks: TaskKindAdapter = {
  kind: 'agent',
  // A background sub-agent that was running when Deft stopped left no process behind; its log keeps what it did.
  onLost: async () => {},
};

/**
 * Delegation: the Agent and AgentSwarm tools, the sub-agent types (built-in and defined in Markdown), and
 * what the window needs to show sub-agents at work. Each sub-agent is a session of its own under its
 * parent's folder (SessionHandle.subagents), deciding its calls under the parent's mode, rules and approvals.
 */
export const agentsCapability: CapabilityFactory = (core) => agentsCapabilityWith()(core);

/** The same with other swarm timings (tests, benchmarks). */
export const agentsCapabilityWith =
  (options: { swarmLimits?: Partial<SwarmLimits> } = {}): CapabilityFactory =>
  (core) => {
    const service = new AgentsService(core, options.swarmLimits);
    void service.catalog.refresh();
    return {
      name: 'agents',
      taskKinds: [agentTasks],
      // A sub-agent's own session gets no delegation tools (no nested sub-agents).
      tools: (session) => (session.agent ? [] : [agentTool(session, service), agentSwarmTool(session, service), mergeAgentWorkTool(session, core)]),
      onSessionLoaded: async () => void (await service.catalog.refresh()),
      // Definitions added, edited or removed reach the Agent tool's description at the next turn.
      onTurnStart: () => void service.catalog.refresh(),
      canUnload: (sessionId) => !service.live.running(sessionId),
      onSessionUnloaded: (session) => service.live.forget(session.id),
      onSessionDeleted: async (sessionId) => {
        service.live.stopAll(sessionId);
        // Its isolated sub-agents' worktrees go with it when nothing would be lost (isolation.ts); the user is told which stay.
        const agentWorktrees = await releaseIsolations(core, sessionId);
        return agentWorktrees.length ? { agentWorktrees } : undefined;
      },
      close: () => service.close(),
      commands: {
        listAgentTypes: async () => {
          const snapshot = await service.catalog.refresh();
          return { types: service.catalog.summaries(), skipped: [...snapshot.skipped] };
        },
        getAgentTranscript: async ({ sessionId, agentId }) => {
          const session = await core.session(sessionId);
          const agent = await session.subagents.open(agentId);
          if (!agent) throw new CommandError('not_found', `Session ${sessionId} has no sub-agent ${agentId}.`);
          const card = (await readCard(agent)) ?? {
            agentId,
            type: agent.type,
            description: agent.description,
            status: 'completed' as const,
            startedAt: 0,
            usage: agent.usage(),
            steps: 0,
          };
          return { agent: card, events: [...(await agent.events())] };
        },
        stopAgents: async ({ sessionId, agentId, swarmId }) => {
          if (!agentId && !swarmId) throw new CommandError('invalid_request', 'Say which sub-agent (agentId) or swarm (swarmId) to stop.');
          return { stopped: (agentId ? service.live.stop(sessionId, agentId) : 0) + (swarmId ? service.live.stop(sessionId, swarmId) : 0) };
        },
      },
    };
  };
