import { useEffect, useMemo } from 'react';
import { loadMcpServers } from '../../actions/mcp';
import { useMcp } from '../../stores/mcp';

/** An MCP server's prompt as the slash menu lists it. */
export interface McpPromptCommand {
  command: string;
  argumentHint?: string;
  description: string;
  badge: string;
}

/** The prompts of the connected MCP servers, as slash commands (`/mcp__server__prompt`), kept current by mcp.updated. */
export function useMcpPromptCommands(): McpPromptCommand[] {
  const overview = useMcp((s) => s.overview);
  useEffect(() => {
    if (!useMcp.getState().overview) void loadMcpServers();
  }, []);
  return useMemo(
    () =>
      (overview?.servers ?? []).flatMap((server) =>
        server.prompts.map((prompt) => ({
          command: prompt.command,
          description: prompt.description || `A prompt of the MCP server ${server.name}`,
          badge: 'MCP',
          ...(prompt.arguments.length ? { argumentHint: prompt.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(' ') } : {}),
        })),
      ),
    [overview],
  );
}

/** The MCP prompt a composer text runs (`/mcp__server__prompt args`), or null when it is not one. */
export function mcpPromptCall(text: string, commands: readonly McpPromptCommand[]): { command: string; args: string } | null {
  const match = /^\/(mcp__\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match || !commands.some((c) => c.command === match[1])) return null;
  return { command: match[1]!, args: match[2] ?? '' };
}
