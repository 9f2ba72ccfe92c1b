import { AGENT_SWARM_TOOL, AGENT_TOOL } from '../tools/names';

/**
 * Tool names other agents' definitions use, as Deft's (null: no equivalent here, or delegation). Which tools a
 * sub-agent may have at all is each tool's own policy (ToolPolicy.mainAgentOnly), applied by the runtime.
 */
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

/** This capability's own delegation tools: a sub-agent never delegates further. */
const DELEGATION = new Set([AGENT_TOOL, AGENT_SWARM_TOOL]);

/** What a tool name looks like: `Read`, `select_tools`, `mcp__github__create_issue`, `mcp__github__*`. */
const TOOL_NAME = /^([A-Za-z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_-]+(\*|__[A-Za-z0-9_*-]+)?)$/;

/** One entry of a definition's `tools`, as Deft names it; or why it is left out. */
export function normaliseToolName(raw: string): { name: string } | { ignored: string } {
  const name = raw.trim().replace(/\(.*\)$/, '');
  if (!name) return { ignored: 'an empty tool name' };
  if (DELEGATION.has(name)) return { ignored: `${name} (sub-agents cannot have it)` };
  if (name in ALIASES) {
    const alias = ALIASES[name];
    return alias ? { name: alias } : { ignored: `${name} (${name === 'Task' ? 'sub-agents cannot delegate' : 'no such tool in Deft'})` };
  }
  if (name === '*' || TOOL_NAME.test(name)) return { name };
  return { ignored: `${name} (not a tool name)` };
}

/** A test of tool names from a list of names and prefixes (`mcp__github__*`); `*` is every tool a sub-agent may have. */
export function toolMatcher(names: readonly string[]): (tool: string) => boolean {
  const exact = new Set(names.filter((n) => !n.endsWith('*')));
  const prefixes = names.filter((n) => n.endsWith('*')).map((n) => n.slice(0, -1));
  return (tool) => exact.has(tool) || prefixes.some((p) => tool.startsWith(p));
}
