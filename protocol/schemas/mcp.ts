import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/**
 * The schemas of this file, built on first use (mcpSchemas): only the command table and the event and display
 * schemas validate against them, and a run that validates none (the CLI's text turn) never builds them.
 */
const buildMcpSchemas = () => {
  /** Where a server's definition came from. */
  const McpServerSource = z.enum(['user', 'project', 'cli']);

  /**
   * A server's state: `untrusted` (a workspace server in a folder not trusted: nothing runs), `needs-approval`
   * (trusted folder, this definition not approved yet), `denied`, `disabled`, `starting`, `connected`,
   * `failed` (with its error and stderr), `needs-auth` (a remote server that requires sign-in).
   */
  const McpServerStatus = z.enum(['untrusted', 'needs-approval', 'denied', 'disabled', 'starting', 'connected', 'failed', 'needs-auth']);

  /** One tool of a server as the settings page lists it. */
  const McpToolInfo = z.object({
    /** The name the model calls (`mcp__server__tool`). */
    name: z.string(),
    /** The server's own name for it. */
    serverTool: z.string(),
    description: z.string(),
    /** Its schema stays out of the request until the model selects it. */
    deferred: z.boolean(),
  });

  /** One prompt of a server, run as the slash command `/mcp__server__prompt` with its arguments in order. */
  const McpPromptInfo = z.object({
    /** The slash command (without the slash): `mcp__<server>__<prompt>`. */
    command: z.string(),
    /** The server's own name for it. */
    serverPrompt: z.string(),
    description: z.string(),
    arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() })),
  });

  /** One configured server. */
  const McpServerInfo = z.object({
    name: z.string(),
    source: McpServerSource,
    /** The file that defines it. */
    file: z.string(),
    transport: z.enum(['stdio', 'http', 'sse']),
    /** The command line or URL. */
    target: z.string(),
    status: McpServerStatus,
    error: z.string().optional(),
    /** The last lines the server wrote to stderr. */
    stderr: z.array(z.string()),
    tools: z.array(McpToolInfo),
    /** Where the user signs in, when the server needs it (`needs-auth`): a web page, opened in the browser. */
    authorizeUrl: z.string().url().optional(),
    /** Its prompts (slash commands), while it is connected. */
    prompts: z.array(McpPromptInfo).default([]),
    /** Variables its definition uses that are not set. */
    missingVariables: z.array(z.string()),
    /** Environment variables its definition reads (`${VAR}`), shown before a workspace server is approved. */
    variables: z.array(z.string()),
    /** The definition as written in its file (variables not expanded). */
    definition: z.record(z.string(), z.unknown()),
  });

  /** Every server, and the problems of the MCP files (a broken file or entry). */
  const McpOverview = z.object({
    servers: z.array(McpServerInfo),
    problems: z.array(z.object({ file: z.string(), message: z.string() })),
  });

  /** A server name as written in an `mcpServers` file. */
  const McpServerName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a server name uses letters, digits, "_", "-" and "."');

  /** The result of an MCP tool call as a card shows it. */
  const McpResultDisplay = z.object({
    kind: z.literal('mcp_result'),
    server: z.string(),
    text: z.string(),
    images: z.array(z.object({ mimeType: z.string(), dataUrl: z.string() })),
    resources: z.array(z.object({ uri: z.string(), name: z.string().optional(), mimeType: z.string().optional() })),
  });

  /** An MCP tool call as its card shows it before the result. */
  const McpCallDisplay = z.object({ kind: z.literal('mcp_call'), server: z.string(), tool: z.string(), arguments: z.string() });
  return { McpServerSource, McpServerStatus, McpToolInfo, McpPromptInfo, McpServerInfo, McpOverview, McpServerName, McpResultDisplay, McpCallDisplay };
};
export type McpSchemas = ReturnType<typeof buildMcpSchemas>;
export const mcpSchemas: () => McpSchemas = builtOnce(buildMcpSchemas);

// The types of the schemas above (each documented at its schema).
export type McpServerStatus = z.infer<McpSchemas['McpServerStatus']>;
export type McpToolInfo = z.infer<McpSchemas['McpToolInfo']>;
export type McpPromptInfo = z.infer<McpSchemas['McpPromptInfo']>;
export type McpServerInfo = z.infer<McpSchemas['McpServerInfo']>;
export type McpOverview = z.infer<McpSchemas['McpOverview']>;
