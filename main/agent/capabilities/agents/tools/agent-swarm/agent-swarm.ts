import { z } from 'zod';
import type { SessionHandle } from '#contract/capability';
import { AGENT_ID_PATTERN, type Subagent } from '#contract/subagents';
import { type Tool, defineTool, errorResult, renderDescription } from '#contract/tool';
import type { AgentsService } from '../../service';
import { SWARM_LIMITS } from '../../swarm-scheduler';
import type { SwarmEntry } from '../../swarm';
import description from './agent-swarm.md?raw';
import { AGENT_SWARM_TOOL } from '../names';
import { toolInput } from '#contract/tool-input';

const input = toolInput('AgentSwarm', () =>
  z.object({
    description: z.string().trim().min(1).max(100).describe('What the swarm does, in 3–5 words (shown to the user).'),
    prompt_template: z.string().max(200_000).optional().describe('The brief for each sub-agent; {{item}} is replaced by its item.'),
    items: z.array(z.string().max(10_000)).max(SWARM_LIMITS.maxItems).default([]).describe('The items, one sub-agent each (2–128).'),
    subagent_type: z.string().trim().min(1).max(64).optional().describe('The kind of sub-agent for every item (default coder).'),
    isolation: z
      .enum(['worktree'])
      .optional()
      .describe('"worktree": each new sub-agent works in a git worktree of its own (its own branch); the report names each branch and its changed files.'),
    resume_agent_ids: z
      .record(z.string(), z.string().min(1).max(200_000))
      .optional()
      .describe('Sub-agents to continue, by agent_id, each with its next prompt.'),
  }),
);

export function agentSwarmTool(session: SessionHandle, service: AgentsService): Tool {
  return defineTool({
    name: AGENT_SWARM_TOOL,
    // Delegation itself changes nothing: each call a sub-agent makes is decided like the session's own. No nested sub-agents.
    policy: { approval: 'self', mainAgentOnly: true },
    description: renderDescription(description, {
      types: service
        .typeNames()
        .map((n) => `\`${n}\``)
        .join(', '),
      item: '{{item}}',
    }),
    input,
    exclusive: true,
    resolveExecution: async (args) => {
      if (session.agent) return errorResult('A sub-agent cannot start sub-agents of its own. Do the work yourself.');
      const items = args.items.map((item) => item.trim());
      const resumes = Object.entries(args.resume_agent_ids ?? {});
      const empty = items.findIndex((item) => !item);
      if (empty >= 0) return errorResult(`Item ${empty} is empty. Every item must have some text.`);
      if (items.length && !args.prompt_template)
        return errorResult('prompt_template is required with items: the brief each sub-agent gets, with {{item}} where its item goes.');
      if (items.length && !args.prompt_template!.includes('{{item}}'))
        return errorResult("prompt_template must contain {{item}}: that is where each sub-agent's item goes.");
      if (!resumes.length && items.length < 2) return errorResult(`Give at least 2 items (got ${items.length}); for a single task call Agent instead.`);
      if (items.length + resumes.length > SWARM_LIMITS.maxItems)
        return errorResult(
          `At most ${SWARM_LIMITS.maxItems} items and resumes together (got ${items.length + resumes.length}). Split the work into several swarms.`,
        );
      const prompts = items.map((item) => args.prompt_template!.split('{{item}}').join(item));
      const seen = new Map<string, number>();
      for (const [index, prompt] of prompts.entries()) {
        const first = seen.get(prompt);
        if (first !== undefined)
          return errorResult(`Duplicate subagent prompts from items ${first} and ${index}: each item must give a different prompt. Remove the duplicate.`);
        seen.set(prompt, index);
      }
      if (args.isolation && resumes.length)
        return errorResult('isolation applies to new sub-agents only: resumed ones work where they worked before. Resume them in a swarm of their own.');
      const resumed: Array<{ agent: Subagent; prompt: string }> = [];
      for (const [agentId, prompt] of resumes) {
        if (!AGENT_ID_PATTERN.test(agentId)) return errorResult(`"${agentId}" is not an agent_id (they look like a1b2c3d4e).`);
        const agent = await session.subagents.open(agentId);
        if (!agent) return errorResult(`There is no sub-agent ${agentId} in this session.`);
        if (agent.busy) return errorResult(`Sub-agent ${agentId} is still running; it cannot be resumed now.`);
        resumed.push({ agent, prompt });
      }
      const typeName = args.subagent_type ?? 'coder';
      const type = service.type(typeName);
      if (!type) return errorResult(`There is no sub-agent type "${typeName}". Available: ${service.typeNames().join(', ')}.`);
      for (const { agent } of resumed) {
        if (!service.type(agent.type)) return errorResult(`Sub-agent ${agent.id} is of type "${agent.type}", which no longer exists.`);
      }
      const entries: SwarmEntry[] = [
        ...resumed.map(({ agent, prompt }) => ({ item: `resume ${agent.id}`, prompt, existing: agent })),
        ...items.map((item, index) => ({ item, prompt: prompts[index]! })),
      ];
      return {
        description: `${type.name} swarm: ${args.description} (${entries.length} sub-agents${args.isolation ? ', each in a worktree' : ''})`,
        display: {
          kind: 'agent_swarm',
          agentName: type.name,
          description: args.description,
          items: entries.map((e) => e.item),
          ...(resumed.length ? { resumes: resumed.length } : {}),
        },
        approvalRule: AGENT_SWARM_TOOL,
        // The swarm runner is loaded with the first swarm.
        execute: async (ctx) =>
          (await import('../../swarm')).runSwarm({
            session,
            service,
            type,
            entries,
            description: args.description,
            ctx,
            ...(args.isolation ? { isolation: args.isolation } : {}),
          }),
      };
    },
  });
}
