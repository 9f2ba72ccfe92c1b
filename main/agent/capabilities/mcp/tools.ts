import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Tool, type ToolResult, access, errorResult } from '#contract/tool';
import type { ServerDefinition } from './config';
import type { ServerConnection } from './connection';
import { DEFAULT_CALL_TIMEOUT_MS } from './limits';
import { mcpToolName } from './naming';
import { convertResult } from './output';

/** MCP arguments are a JSON object; the server's own schema (inputSchema) checks the rest. */
const McpArguments = z.record(z.string(), z.unknown());
const MAX_DESCRIPTION = 4_000;

export interface McpToolDeps {
  /** The server's live connection at call time (it may have restarted since the tool was listed), or why there is none. */
  connection(server: string): { connection: ServerConnection } | { reason: string };
}

/** A server's tool as a Deft tool: `mcp__<server>__<tool>`, its schema as the server gave it. */
export function mcpTool(definition: ServerDefinition, tool: McpTool, deferred: boolean, deps: McpToolDeps): Tool {
  const name = mcpToolName(definition.name, tool.name);
  const server = definition.name;
  const timeoutMs = definition.config.timeout ? definition.config.timeout * 1000 : DEFAULT_CALL_TIMEOUT_MS;
  const description = (tool.description ?? '').trim() || `The "${tool.name}" tool of the MCP server "${server}".`;
  return {
    name,
    // A server's "read-only" hint does not change how its calls are approved: by the mode and the rules.
    policy: { approval: 'rules', mainAgentOnly: false },
    description: `${description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description}\n(MCP server: ${server})`,
    input: McpArguments,
    inputSchema: tool.inputSchema,
    source: 'mcp',
    disclosure: deferred ? 'deferred' : 'inline',
    resolveExecution: (args, env) => ({
      // The server's readOnlyHint only lets the call run beside others; it never skips an approval.
      ...(tool.annotations?.readOnlyHint === true ? { accesses: access.none() } : {}),
      description: `${server}: ${tool.title ?? tool.annotations?.title ?? tool.name}`,
      display: { kind: 'mcp_call', server, tool: tool.name, arguments: JSON.stringify(args, null, 2).slice(0, 20_000) },
      approvalRule: name,
      execute: async (ctx): Promise<ToolResult> => {
        const live = deps.connection(server);
        if ('reason' in live) return errorResult(`${live.reason} The call to ${tool.name} was not made.`);
        try {
          const result = await live.connection.callTool(tool.name, args as Record<string, unknown>, {
            signal: ctx.signal,
            timeoutMs,
            onProgress: (text) => ctx.onUpdate({ kind: 'progress', text }),
          });
          const { tool: converted, view } = convertResult(result, env.capabilities.imageInput);
          return { ...converted, display: { kind: 'mcp_result', server, ...view } };
        } catch (error) {
          if (ctx.signal.aborted) throw error;
          return errorResult((await import('./connection')).callFailure(server, tool.name, error, timeoutMs, live.connection));
        }
      },
    }),
  };
}
