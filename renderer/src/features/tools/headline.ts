import type { ToolItem } from '../../stores/transcript';

/** Descriptions that already start with what the call does ("Create src/a.ts", "Load skill review"). */
const SAYS_WHAT = /^(Create|Merge|Overwrite|Append|View|Load|Update|Clear|Read|Start|Stop|List|Output|Delete|Schedule|Enter|Review|Goal)\b/;

/** A card's title, saying each thing once: the tool (unless the description names the action), and what it acts on. */
export interface Headline {
  verb: string | null;
  /** The description, split around the file path when it holds one. */
  before: string;
  path: string | null;
  after: string;
}

function pathOf(item: ToolItem): string | null {
  const display = item.display;
  if (display.kind === 'file_io' || display.kind === 'diff') return display.path;
  const result = item.result?.display;
  return result && (result.kind === 'file_content' || result.kind === 'diff') ? result.path : null;
}

/** An MCP call names its server and tool ("github › create_issue"); its title, when the server gave one, follows. */
function mcpHeadline(item: ToolItem, server: string, tool: string): Headline {
  const title = item.description.startsWith(`${server}: `) ? item.description.slice(server.length + 2) : item.description;
  return { verb: `${server} › ${tool}`, before: title === tool || title === item.name ? '' : title, path: null, after: '' };
}

/** An MCP tool's name as the core registers it: mcp__<server>__<tool>. */
const MCP_NAME = /^mcp__(.+?)__(.+)$/;

export function headline(item: ToolItem): Headline {
  if (item.display.kind === 'mcp_call') return mcpHeadline(item, item.display.server, item.display.tool);
  // A call that never reached its server (not connected, unknown tool) still reads server › tool.
  const mcp = MCP_NAME.exec(item.name);
  if (mcp) return mcpHeadline(item, mcp[1]!, mcp[2]!);
  let verb: string | null = item.name;
  let text = item.description;
  if (text === item.name) text = '';
  else if (text.startsWith(`${item.name} `)) text = text.slice(item.name.length + 1);
  else if (SAYS_WHAT.test(text)) verb = null;
  const path = pathOf(item);
  const at = path ? text.indexOf(path) : -1;
  if (!path || at < 0) return { verb, before: text, path: null, after: '' };
  return { verb, before: text.slice(0, at), path, after: text.slice(at + path.length) };
}
