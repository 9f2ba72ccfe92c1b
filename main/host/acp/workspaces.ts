import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { ClientCapabilities, McpServer } from '@agentclientprotocol/sdk';
import type { CoreOptions, DeftCore } from '#runtime/core';
import type { Environment } from '#contract/environment';
import { type ClientFiles, clientFilesEnvironment } from '#infra/environment/client-fs/client-fs-environment';
import { type ClientTerminals, clientTerminalEnvironment } from '#infra/environment/client-terminal/client-terminal-environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import type { ProviderOverrides } from '#infra/settings/provider-config';
import { defaultCapabilities } from '../../agent/capabilities';
import { withMcpOptions } from '../../agent/capabilities/mcp/capability';
import { createNodeCore, resolveWorkspace } from '../compose';
import { acpHost } from '../hosts';

/** What every workspace's core is made with: the provider flags and environment of `deft acp`. */
export interface CoreSettings {
  env: Record<string, string | undefined>;
  providerOverrides: ProviderOverrides;
  sandbox?: 'on' | 'off';
  mcpConfigs: readonly string[];
  stderr: (text: string) => void;
  /** Deft's version, told to the client. */
  version: string;
  /** Extra core options (tests). */
  coreOptions?: Partial<CoreOptions>;
}

/** One folder a client opened sessions in: its core, and the MCP servers clients passed for it. */
export interface Workspace {
  readonly path: string;
  readonly core: DeftCore;
  /** The session the client's file system is asked for (the one prompted last). */
  activeSession: string | null;
  addMcpServers(servers: readonly McpServer[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The workspaces of one ACP connection, by real path: a core each (Deft's core serves one folder), created on the
 * first session in it. `cwd` comes from the client, so it is checked: absolute, an existing folder.
 */
export class Workspaces {
  private readonly byPath = new Map<string, Workspace>();

  constructor(
    private readonly settings: CoreSettings,
    private readonly clientCapabilities: () => ClientCapabilities,
    private readonly clientFiles: (workspace: Workspace) => ClientFiles,
    private readonly clientTerminals: (workspace: Workspace) => ClientTerminals | null,
  ) {}

  /** The workspace at `cwd`; throws a message for the client when `cwd` is not an absolute path of a folder. */
  async open(cwd: string): Promise<Workspace> {
    if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw new Error(`cwd must be an absolute path; got ${JSON.stringify(cwd)}.`);
    const path = resolveWorkspace(cwd);
    const existing = this.byPath.get(path);
    if (existing) return existing;
    const workspace = await this.create(path);
    this.byPath.set(path, workspace);
    return workspace;
  }

  all(): Workspace[] {
    return [...this.byPath.values()];
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled(this.all().map((w) => w.close()));
    this.byPath.clear();
  }

  private async create(path: string): Promise<Workspace> {
    // The client's MCP servers go in a file of their own, passed as `--mcp-config` files are: the user's own servers,
    // started as the user. Written again when a later session adds servers; the MCP capability reads it at each turn.
    const dir = await mkdtemp(join(tmpdir(), 'deft-acp-'));
    await chmod(dir, 0o700);
    const mcpFile = join(dir, 'mcp.json');
    const servers = new Map<string, Record<string, unknown>>();
    const writeServers = () => writeFile(mcpFile, JSON.stringify({ mcpServers: Object.fromEntries(servers) }), { mode: 0o600 });
    await writeServers();
    const { settings } = this;
    const capabilities = withMcpOptions(defaultCapabilities, {
      extraConfigs: [mcpFile, ...settings.mcpConfigs],
      headless: true,
      env: settings.env,
    });
    let workspace: Workspace | null = null;
    const caps = this.clientCapabilities();
    const useClientFs = Boolean(caps.fs?.readTextFile || caps.fs?.writeTextFile);
    let environment: Environment | undefined;
    if (useClientFs) environment = clientFilesEnvironment(localEnvironment(), path, () => (workspace ? this.clientFiles(workspace) : null));
    if (caps.terminal) environment = clientTerminalEnvironment(environment ?? localEnvironment(), () => (workspace ? this.clientTerminals(workspace) : null));
    const core = createNodeCore({
      workspace: path,
      host: acpHost(settings.stderr),
      env: settings.env,
      providerOverrides: settings.providerOverrides,
      capabilities,
      // The editor drives its sessions: a posted prompt waits for a turn of the session it shows to end.
      inbox: 'shown',
      ...(environment ? { environment } : {}),
      ...(settings.sandbox ? { sandbox: settings.sandbox } : {}),
      ...settings.coreOptions,
    });
    workspace = {
      path,
      core,
      activeSession: null,
      addMcpServers: async (added) => {
        for (const server of added) servers.set(mcpName(server.name), mcpDefinition(server));
        if (added.length) await writeServers();
      },
      close: async () => {
        await core.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
    return workspace;
  }
}

/** A server's name as Deft's MCP names are spelt (letters, digits, `_.-`; tools become `mcp__<name>__<tool>`). */
function mcpName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 64) || 'server';
}

/** An ACP MCP server as an `mcpServers` entry. */
function mcpDefinition(server: McpServer): Record<string, unknown> {
  const record = (pairs: ReadonlyArray<{ name: string; value: string }>) => Object.fromEntries(pairs.map((p) => [p.name, p.value]));
  if ('type' in server && (server.type === 'http' || server.type === 'sse')) return { type: server.type, url: server.url, headers: record(server.headers) };
  const stdio = server;
  return { command: stdio.command, args: stdio.args, env: record(stdio.env) };
}
