import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type GetPromptResult,
  type Prompt as McpPrompt,
  PromptListChangedNotificationSchema,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { MAX_SCHEMA_DEPTH, jsonDepth } from '#infra/platform/json-depth';
import { type ServerDefinition, isStdio } from './config';
import type { McpCallResult } from './output';
import { StderrTail } from './stderr-tail';

import type { RemoteLauncher, StdioLauncher } from './launch';
import type { Environment } from '#contract/environment';

const CONNECT_TIMEOUT_MS = 30_000;

export interface ConnectionOptions {
  definition: ServerDefinition;
  workspace: string;
  /**
   * Where the user's own servers start (Deft's home): never the workspace, where `npx -y x` or `python -m x`
   * would find the repository's copy of x.
   */
  neutralCwd: string;
  launch: StdioLauncher;
  /** A remote workspace's machine: its own (project) stdio servers are started there. */
  environment?: Environment;
  /** How they start there (in that machine's sandbox when it has one); default: as configured. */
  remoteLaunch?: RemoteLauncher;
  clientVersion: string;
  /** The server's tools changed (list_changed), or it closed. */
  onToolsChanged(): void;
  /** The connection closed without being asked to. */
  onClosed(error: Error): void;
  /** OAuth for a remote server (the SDK signs in and refreshes through it). */
  authProvider?(name: string, url: string): Promise<OAuthClientProvider | undefined>;
}

/** One live connection to a server (a new one is made for each restart). */
export class ServerConnection {
  readonly stderr = new StderrTail();
  tools: McpTool[] = [];
  /** Tools the server listed that Deft refused (why, one line each): the rest of its tools work. */
  refusedTools: string[] = [];
  prompts: McpPrompt[] = [];
  private client: Client | null = null;
  private closing = false;
  private release: (() => void) | null = null;
  pid: number | null = null;

  constructor(private readonly options: ConnectionOptions) {}

  /** Connect and list the tools; throws with a readable message (and stderr lines) when it cannot. */
  async open(): Promise<void> {
    const { definition, environment } = this.options;
    // A remote folder's own URL means that machine's network (its localhost is not this one's): not reached from here.
    if (environment && environment.kind !== 'local' && definition.source === 'project' && !isStdio(definition.config))
      throw new Error(`A remote folder's own HTTP servers are not reached from this machine (its address is on ${environment.label}'s network)`);
    if (isStdio(definition.config)) await this.connect(await this.stdioTransport());
    else {
      const authProvider = await this.options.authProvider?.(definition.name, definition.config.url);
      if (definition.config.type === 'sse') await this.connect(this.sseTransport(authProvider));
      else {
        try {
          await this.connect(
            new StreamableHTTPClientTransport(new URL(definition.config.url), {
              requestInit: { headers: definition.config.headers ?? {} },
              ...(authProvider ? { authProvider } : {}),
            }),
          );
        } catch (error) {
          // Servers of the older HTTP+SSE protocol answer a Streamable HTTP POST with 4xx: try that protocol.
          if (error instanceof UnauthorizedError || !/\b(40[0-9]|HTTP 4)/.test((error as Error).message) || this.closing) throw error;
          await this.connect(this.sseTransport(authProvider));
        }
      }
    }
    await this.refreshTools();
    await this.refreshPrompts().catch(() => {});
  }

  private sseTransport(authProvider: OAuthClientProvider | undefined): Transport {
    const config = this.options.definition.config;
    if (isStdio(config)) throw new Error('not a remote server');
    const headers = config.headers ?? {};
    return new SSEClientTransport(new URL(config.url), {
      ...(authProvider ? { authProvider } : {}),
      requestInit: { headers },
      eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
    });
  }

  private async stdioTransport(): Promise<Transport> {
    const { definition, workspace, neutralCwd, environment } = this.options;
    const config = definition.config;
    if (!isStdio(config)) throw new Error('not a stdio server');
    const base = definition.source === 'project' ? workspace : neutralCwd;
    // A remote workspace's own server runs on its machine (never here, where its command would be this machine's program).
    // The user's own servers stay on this machine.
    if (environment && environment.kind !== 'local' && definition.source === 'project') {
      const { EnvironmentStdioTransport } = await import('./environment-transport');
      const cwd = !config.cwd
        ? base
        : /^~(?=\/|$)/.test(config.cwd)
          ? environment.path.resolve(environment.home, `.${config.cwd.slice(1)}`)
          : environment.path.resolve(base, config.cwd);
      const request = { file: config.command, args: config.args ?? [], cwd, env: config.env ?? {}, label: `MCP server ${definition.name}` };
      const plan = this.options.remoteLaunch ? await this.options.remoteLaunch(request) : { ...request, release: () => {} };
      this.release = () => plan.release();
      return new EnvironmentStdioTransport(environment, { file: plan.file, args: plan.args, cwd: plan.cwd, env: plan.env }, (text) => this.stderr.push(text));
    }
    const plan = await this.options.launch({
      argv: [config.command, ...(config.args ?? [])],
      cwd: config.cwd ? resolveCwd(base, config.cwd) : base,
      workspace,
      env: config.env ?? {},
      label: `MCP server ${definition.name}`,
      source: definition.source,
    });
    this.release = () => plan.release();
    const transport = new StdioClientTransport({ command: plan.file, args: plan.args, env: plan.env, cwd: plan.cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
    return transport;
  }

  private async connect(transport: Transport): Promise<void> {
    const client = new Client({ name: 'deft', version: this.options.clientVersion }, { capabilities: {} });
    client.onerror = () => {
      // Protocol noise (a malformed line) is not fatal; a closed transport arrives through onclose.
    };
    let connected = false;
    client.onclose = () => {
      // A failed connect closes the transport too: that is the connect's error, not a crash.
      if (this.client !== client || !connected) return;
      this.client = null;
      this.release?.();
      this.release = null;
      if (!this.closing) this.options.onClosed(new Error(this.exitMessage('The server closed the connection')));
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      await this.refreshTools().catch(() => {});
      this.options.onToolsChanged();
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      await this.refreshPrompts().catch(() => {});
      this.options.onToolsChanged();
    });
    this.client = client;
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      connected = true;
      this.pid = transport instanceof StdioClientTransport ? (transport.pid ?? null) : null;
    } catch (error) {
      this.client = null;
      await client.close().catch(() => {});
      this.release?.();
      this.release = null;
      throw new Error(this.exitMessage(`Could not connect: ${(error as Error).message}`), { cause: error });
    }
  }

  /** A message with what the server last wrote to stderr. */
  exitMessage(what: string): string {
    const lines = this.stderr.lines(5);
    return lines.length ? `${what}. Its last stderr lines: ${lines.join(' | ')}` : what;
  }

  async refreshTools(): Promise<void> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.tools) {
      this.tools = [];
      return;
    }
    const listed = await allPages(async (cursor) => {
      const page = await client.listTools(cursor ? { cursor } : {});
      return { items: page.tools, nextCursor: page.nextCursor };
    }, 10_000);
    // A schema nested thousands deep would overflow the stack wherever it is copied, compiled or sent.
    const name = this.options.definition.name;
    this.refusedTools = listed
      .filter((t) => jsonDepth(t.inputSchema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH)
      .map(
        (t) =>
          `MCP server "${name}": its tool "${t.name}" was left out: its input schema nests deeper than ${MAX_SCHEMA_DEPTH} levels, more than Deft accepts. The server's other tools work.`,
      );
    this.tools = this.refusedTools.length ? listed.filter((t) => jsonDepth(t.inputSchema, MAX_SCHEMA_DEPTH) <= MAX_SCHEMA_DEPTH) : listed;
  }

  /** The server's prompts (slash commands); none when it offers none. */
  async refreshPrompts(): Promise<void> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.prompts) {
      this.prompts = [];
      return;
    }
    this.prompts = await allPages(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : {});
      return { items: page.prompts, nextCursor: page.nextCursor };
    }, 1_000);
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
    const client = this.client;
    if (!client) throw new Error('The server is not connected.');
    return client.getPrompt({ name, arguments: args }, { ...(signal ? { signal } : {}), timeout: 60_000 });
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number; onProgress(text: string): void },
  ): Promise<McpCallResult> {
    const client = this.client;
    if (!client) throw new Error('The server is not connected.');
    const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      signal: options.signal,
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: false,
      onprogress: (progress) => {
        const of = progress.total ? ` of ${progress.total}` : '';
        options.onProgress(`${progress.progress}${of}${progress.message ? ` — ${progress.message}` : ''}`);
      },
    });
    return result as McpCallResult;
  }

  /** Stop the server (its process is ended by the SDK's transport: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => {});
    this.release?.();
    this.release = null;
  }
}

/** A server's `cwd`: absolute, `~/…` (the user's home), or relative to where it would start anyway. */
function resolveCwd(base: string, cwd: string): string {
  if (/^~(?=\/|$)/.test(cwd)) return resolve(homedir(), `.${cwd.slice(1)}`);
  return resolve(base, cwd);
}

/** Every item of a paginated MCP list, page after page, until the server has no next cursor or `cap` items are in. */
async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>, cap: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    items.push(...next.items);
    cursor = next.nextCursor;
  } while (cursor && items.length < cap);
  return items;
}

/** Whether a failed start asks for a sign-in (the server answered 401). */
export function needsSignIn(error: Error): boolean {
  return error instanceof UnauthorizedError || error.cause instanceof UnauthorizedError || /\b401\b|Unauthorized/i.test(error.message);
}

/** A failed tool call in words for the model. */
export function callFailure(server: string, tool: string, error: unknown, timeoutMs: number, connection: ServerConnection): string {
  if (error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number)) {
    return `The MCP server "${server}" did not answer ${tool} within ${Math.round(timeoutMs / 1000)} s, so the call was cancelled. Its effect is unknown.`;
  }
  if (error instanceof McpError && error.code === (ErrorCode.ConnectionClosed as number)) {
    return `${connection.exitMessage(`The MCP server "${server}" exited while ${tool} ran`)}. The call's effect is unknown; the server is being restarted.`;
  }
  if (error instanceof McpError) return `The MCP server "${server}" refused ${tool}: ${error.message}`;
  return `The call to ${tool} on MCP server "${server}" failed: ${(error as Error)?.message ?? String(error)}`;
}
