/**
 * Which tools sub-agents get. No type includes delegation (no nested sub-agents), nor what belongs to the
 * main agent's conversation with the user: goals, plan mode (the parent's plan mode applies to them),
 * scheduled prompts, questions to the user.
 */
export const MAIN_AGENT_ONLY = new Set([
  'Agent',
  'AgentSwarm',
  'CreateGoal',
  'GetGoal',
  'SetGoalBudget',
  'UpdateGoal',
  'EnterPlanMode',
  'ExitPlanMode',
  'CronCreate',
  'CronList',
  'CronDelete',
  'AskUserQuestion',
]);

/** Read-only tools (and the web), what `plan` gets; `explore` adds Bash. */
const READ_ONLY = ['Read', 'ReadMediaFile', 'Glob', 'Grep', 'FetchURL', 'WebSearch'];

/** The built-in types' tool lists (`*`: every tool a sub-agent may have). */
export const BUILTIN_TOOLS: Record<string, readonly string[]> = {
  coder: ['*'],
  explore: [...READ_ONLY, 'Bash'],
  plan: READ_ONLY,
};

/** Tool names other agents' definitions use, as Deft's (null: no equivalent here, or delegation). */
const ALIASES: Record<string, string | null> = {
  WebFetch: 'FetchURL',
  TodoWrite: 'TodoList',
  TodoRead: 'TodoList',
  LS: 'Glob',
  MultiEdit: 'Edit',
  BashOutput: 'TaskOutput',
  KillShell: 'TaskStop',
  KillBash: 'TaskStop',
  Task: null,
  NotebookEdit: null,
  NotebookRead: null,
};

/** The names a sub-agent's tool list may hold (besides `mcp__…` names and prefixes). */
export const KNOWN_TOOLS = new Set([
  'Read',
  'Write',
  'Edit',
  'Grep',
  'Glob',
  'ReadMediaFile',
  'Bash',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TodoList',
  'Skill',
  'FetchURL',
  'WebSearch',
  'select_tools',
]);

/** One entry of a definition's `tools`, as Deft names it; or why it is left out. */
export function normaliseToolName(raw: string): { name: string } | { ignored: string } {
  const name = raw.trim().replace(/\(.*\)$/, '');
  if (!name) return { ignored: 'an empty tool name' };
  if (MAIN_AGENT_ONLY.has(name)) return { ignored: `${name} (sub-agents cannot have it)` };
  if (name in ALIASES) {
    const alias = ALIASES[name];
    return alias ? { name: alias } : { ignored: `${name} (${name === 'Task' ? 'sub-agents cannot delegate' : 'no such tool in Deft'})` };
  }
  if (name === '*' || KNOWN_TOOLS.has(name) || /^mcp__[A-Za-z0-9_-]+(\*|__[A-Za-z0-9_*-]+)?$/.test(name)) return { name };
  return { ignored: `${name} (unknown tool)` };
}

/** A test of tool names from a list of names and prefixes (`mcp__github__*`); `*` is every tool a sub-agent may have. */
export function toolMatcher(names: readonly string[]): (tool: string) => boolean {
  const exact = new Set(names.filter((n) => !n.endsWith('*')));
  const prefixes = names.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1));
  return (tool) => {
    if (MAIN_AGENT_ONLY.has(tool)) return false;
    // select_tools loads deferred (MCP) tools: useful only to a type that may have some of them.
    if (tool === 'select_tools') return prefixes.some((p) => p === '' || p.startsWith('mcp__')) || [...exact].some((n) => n.startsWith('mcp__'));
    return exact.has(tool) || prefixes.some((p) => tool.startsWith(p));
  };
}
