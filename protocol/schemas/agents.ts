import { z } from 'zod';
import { sessionSchemas } from './session';

/** Where a sub-agent type comes from: built into Deft, the workspace's folders, or the user's. */
export const AgentTypeSource = z.enum(['builtin', 'workspace', 'user']);
export type AgentTypeSource = z.infer<typeof AgentTypeSource>;

/** A sub-agent type the model may delegate to (Agent's `subagent_type`). */
export const AgentTypeSummary = z.object({
  name: z.string(),
  description: z.string(),
  source: AgentTypeSource,
  /** The definition file (absent for built-ins). */
  file: z.string().optional(),
  /** The tools it gets, as names (a trailing `*` is a prefix, e.g. `mcp__*`). */
  tools: z.array(z.string()),
  model: z.string().optional(),
});
export type AgentTypeSummary = z.infer<typeof AgentTypeSummary>;

/** A definition file that could not be used, and why (or a part of it that was ignored). */
export const SkippedAgentType = z.object({ file: z.string(), reason: z.string(), source: AgentTypeSource });
export type SkippedAgentType = z.infer<typeof SkippedAgentType>;

/** Lifecycle of a sub-agent: `idle` is a finished one that can be resumed. */
export const AgentStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled', 'timed_out']);
export type AgentStatus = z.infer<typeof AgentStatus>;

/** A sub-agent as its card shows it. */
export const AgentInfo = z.object({
  agentId: z.string(),
  type: z.string(),
  description: z.string(),
  status: AgentStatus,
  /** The tool call that started (or resumed) it, for placing its card. */
  callId: z.string().optional(),
  /** Its background task (`agent-xxxxxxxx`) when it runs in the background. */
  taskId: z.string().optional(),
  /** The swarm it belongs to and its item there. */
  swarmId: z.string().optional(),
  item: z.string().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  usage: sessionSchemas().Usage,
  steps: z.number().int(),
  /** Its final answer (capped), once it has one. */
  result: z.string().optional(),
  error: sessionSchemas().ErrorInfo.optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;

/** Counts of a swarm's items by state. */
export const SwarmProgress = z.object({
  total: z.number().int(),
  queued: z.number().int(),
  running: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  aborted: z.number().int(),
  /** How many sub-agents may run at once now (it shrinks on rate limits). */
  concurrency: z.number().int(),
});
export type SwarmProgress = z.infer<typeof SwarmProgress>;

export const agentEventShapes = () => ({
  /** A sub-agent started, changed state or ended (persisted in the parent session: its card). */
  'agent.updated': { agent: AgentInfo },
  /** A swarm's progress changed. */
  'swarm.updated': { swarmId: z.string(), callId: z.string(), description: z.string(), progress: SwarmProgress },
});
