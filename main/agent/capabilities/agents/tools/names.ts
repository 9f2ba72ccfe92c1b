/** The delegation tools' names (their folders use them; the definition parser refuses them for sub-agents). */
export const AGENT_TOOL = 'Agent';
export const AGENT_SWARM_TOOL = 'AgentSwarm';
export const MERGE_AGENT_WORK_TOOL = 'MergeAgentWork';
