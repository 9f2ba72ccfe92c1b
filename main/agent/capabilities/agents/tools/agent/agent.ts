import { z } from 'zod';
import type { SessionHandle } from '#contract/capability';
import { type Tool, defineTool, errorResult, renderDescription } from '#contract/tool';
import { AGENT_ID_PATTERN, type Subagent } from '#contract/subagents';
import { matchGlobSubject } from '#infra/policies/rule-match';
import type { AgentsService } from '../../service';
import description from './agent.md?raw';
import { AGENT_TOOL } from '../names';
import { toolInput } from '#contract/tool-input';

const input = toolInput('Agent', () =>
  z.object({
    description: z.string().trim().min(1).max(100).describe('What the sub-agent does, in 3–5 words (shown to the user).'),
    prompt: z.string().min(1).max(200_000).describe('The complete brief for the sub-agent: it sees nothing of this conversation.'),
    subagent_type: z.string().trim().min(1).max(64).optional().describe('The kind of sub-agent (default coder). Not with resume.'),
    resume: z.string().trim().optional().describe('The agent_id of a finished sub-agent to continue, with prompt as its next message.'),
    run_in_background: z.boolean().default(false).describe('Return at once with a task id; you are notified when it finishes.'),
    isolation: z
      .enum(['worktree'])
      .optional()
      .describe('"worktree": it works in a git worktree of its own (a new branch), never in the main checkout; its result names the branch and changed files.'),
  }),
);

export function agentTool(session: SessionHandle, service: AgentsService): Tool {
  return defineTool({
    name: AGENT_TOOL,
    // Delegation itself changes nothing: each call a sub-agent makes is decided like the session's own. No nested sub-agents.
    policy: { approval: 'self', mainAgentOnly: true },
    description: renderDescription(description, { types: service.typeList() }),
    input,
    resolveExecution: async (args) => {
      if (session.agent) return errorResult('A sub-agent cannot start sub-agents of its own. Do the work yourself.');
      if (args.subagent_type && args.resume) {
        return errorResult(
          'Give either subagent_type (to start a new sub-agent) or resume (to continue an existing one), not both: a resumed sub-agent keeps its type.',
        );
      }
      if (args.isolation && args.resume)
        return errorResult('isolation applies to a new sub-agent only: a resumed one works where it worked before. Leave isolation out, or start a new one.');
      let existing: Subagent | undefined;
      if (args.resume) {
        if (!AGENT_ID_PATTERN.test(args.resume))
          return errorResult(`"${args.resume}" is not an agent_id (they look like a1b2c3d4e). A task id (agent-…) is not an agent_id.`);
        existing = await session.subagents.open(args.resume);
        if (!existing) return errorResult(`There is no sub-agent ${args.resume} in this session. Start a new one with subagent_type instead.`);
        if (existing.busy) return errorResult(`Sub-agent ${args.resume} is still running. Wait for its result (you are notified) before resuming it.`);
      }
      const typeName = existing?.type ?? args.subagent_type ?? 'coder';
      const type = service.type(typeName);
      if (!type) return errorResult(`There is no sub-agent type "${typeName}". Available: ${service.typeNames().join(', ')}.`);
      const background = args.run_in_background;
      return {
        accesses: [],
        description: `${existing ? `Resume ${existing.id}` : type.name}: ${args.description}${background ? ' (background)' : ''}${args.isolation ? ' (in a worktree)' : ''}`,
        display: { kind: 'agent_call', agentName: type.name, prompt: args.prompt, ...(background ? { background: true } : {}) },
        approvalRule: `${AGENT_TOOL}(${type.name})`,
        matchesRule: (rule) => matchGlobSubject(rule, type.name),
        execute: (ctx) =>
          background
            ? service.startBackground(session, { type, existing, args, callId: ctx.callId })
            : service.runForeground(session, { type, existing, args, ctx }),
      };
    },
  });
}
