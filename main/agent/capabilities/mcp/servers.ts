import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpOverview, McpPromptInfo, McpServerInfo, McpServerStatus } from '#protocol';
import type { McpServerDecision } from '#infra/settings/trust';
import { serverGate } from './approvals';
import { type ConfigProblem, type ServerDefinition, configFiles, isStdio, loadMcpConfig, withPluginServers } from './config';
import type { ServerConnection } from './connection';
import { promptInfo } from './prompts';
import type { RemoteLauncher, StdioLauncher } from './launch';
import type { Environment } from '#contract/environment';
import { mcpToolName } from './naming';

/** What decides which servers may start: folder trust, the user's answers, servers switched off. */
export interface ServerGates {
  trusted(): Promise<boolean>;
  decisions(): Promise<Record<string, McpServerDecision>>;
  decide(name: string, decision: McpServerDecision): Promise<void>;
  disabled(): Promise<string[]>;
  setDisabled(names: string[]): Promise<void>;
  /** Workspace servers the user allowed by name (`enabledMcpjsonServers`, `deft run --mcp-server`). */
  allowedByName(): Promise<string[]>;
}

export interface McpServersOptions {
  home: string;
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `deft run --mcp-config` files. */
  extraConfigs?: readonly string[];
  gates: ServerGates;
  launch: StdioLauncher;
  /** The workspace's machine: a remote folder's own files are read, and its own stdio servers started, there. */
  environment?: Environment;
  /** How a remote folder's own stdio servers start there (its sandbox). */
  remoteLaunch?: RemoteLauncher;
  clientVersion?: string;
  onChange(): void;
  /** Backoff before restart attempt n (1-based) after a crash, in ms; null gives up. */
  restartDelay?: (attempt: number) => number | null;
  /** OAuth for remote servers that require it: the SDK's provider, and the sign-in page waiting for the user. */
  oauth?: {
    provider(name: string, url: string): Promise<OAuthClientProvider>;
    authorizeUrl(name: string): string | undefined;
  };
}

interface Entry {
  definition: ServerDefinition;
  status: McpServerStatus;
  error?: string;
  connection: ServerConnection | null;
  /** The last connection's stderr, kept after it ended. */
  lastStderr: string[];
  restarts: number;
  connectedAt: number;
  timer: ReturnType<typeof setTimeout> | null;
  /** Resolves when the current start attempt settles. */
  starting: Promise<void> | null;
}

const defaultDelay = (attempt: number): number | null => (attempt > 5 ? null : Math.min(30_000, 1_000 * 2 ** (attempt - 1)));

/**
 * The MCP servers of one workspace: read from the config files, gated by trust and approvals, started
 * in parallel without blocking anyone, restarted with backoff when they die, stopped on close.
 */
export class McpServers {
  private readonly entries = new Map<string, Entry>();
  private problems: ConfigProblem[] = [];
  private syncing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: McpServersOptions) {}

  /** Re-read the configuration and bring the servers in line with it: start what may start, stop what went away or changed. */
  sync(): Promise<void> {
    this.syncing ??= this.doSync().finally(() => (this.syncing = null));
    return this.syncing;
  }

  private async doSync(): Promise<void> {
    if (this.closed) return;
    const { home, workspace, env, extraConfigs, gates, environment } = this.options;
    const files = configFiles({ home, workspace, ...(extraConfigs ? { extra: extraConfigs } : {}), ...(environment ? { environment } : {}) });
    const withPlugins = await withPluginServers(home, files);
    const config = await loadMcpConfig(withPlugins.files, env);
    config.problems.push(...withPlugins.problems.filter((p) => /MCP|is not used/.test(p.message)));
    const [trusted, decisions, disabled, allowedByName] = await Promise.all([gates.trusted(), gates.decisions(), gates.disabled(), gates.allowedByName()]);
    this.problems = config.problems;
    const seen = new Set<string>();
    for (const definition of config.servers) {
      seen.add(definition.name);
      const gate = serverGate(definition, { trusted, decisions, disabled, allowedByName });
      let entry = this.entries.get(definition.name);
      if (entry && entry.definition.fingerprint !== definition.fingerprint) {
        await this.stop(entry);
        this.entries.delete(definition.name);
        entry = undefined;
      }
      if (!entry) {
        entry = { definition, status: gate ?? 'starting', connection: null, lastStderr: [], restarts: 0, connectedAt: 0, timer: null, starting: null };
        this.entries.set(definition.name, entry);
      }
      entry.definition = definition;
      if (gate) {
        await this.stop(entry);
        entry.status = gate;
        delete entry.error;
      } else if (!entry.connection && !entry.starting && entry.status !== 'failed' && entry.status !== 'needs-auth') {
        // A failed server waits for its restart timer or the user's Restart; one that needs a sign-in, for it.
        this.start(entry);
      }
    }
    for (const [name, entry] of this.entries) {
      if (!seen.has(name)) {
        await this.stop(entry);
        this.entries.delete(name);
      }
    }
    this.options.onChange();
  }

  private start(entry: Entry): void {
    if (this.closed) return;
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    entry.status = 'starting';
    delete entry.error;
    // The MCP SDK is loaded with the first server that starts: a run without servers never loads it.
    const starting: Promise<void> = import('./connection')
      .then(({ ServerConnection, needsSignIn }) => {
        if (this.closed || entry.starting !== starting) return;
        const connection = new ServerConnection({
          definition: entry.definition,
          workspace: this.options.workspace,
          neutralCwd: this.options.home,
          launch: this.options.launch,
          ...(this.options.environment ? { environment: this.options.environment } : {}),
          ...(this.options.remoteLaunch ? { remoteLaunch: this.options.remoteLaunch } : {}),
          clientVersion: this.options.clientVersion ?? '0.0.0',
          onToolsChanged: () => this.options.onChange(),
          onClosed: (error) => this.crashed(entry, connection, error),
          ...(this.options.oauth ? { authProvider: (name: string, url: string) => this.options.oauth!.provider(name, url) } : {}),
        });
        entry.connection = connection;
        return connection.open().then(
          () => {
            if (entry.connection !== connection) return;
            entry.status = 'connected';
            entry.connectedAt = Date.now();
          },
          (error: Error) => {
            if (entry.connection !== connection) return;
            entry.lastStderr = connection.stderr.lines();
            entry.connection = null;
            void connection.close();
            const needsAuth = needsSignIn(error) && !isStdio(entry.definition.config);
            entry.status = needsAuth ? 'needs-auth' : 'failed';
            entry.error = needsAuth
              ? this.options.oauth?.authorizeUrl(entry.definition.name)
                ? 'The server requires you to sign in: choose Sign in (Settings → MCP servers) and finish in your browser.'
                : `The server requires authentication and did not offer a sign-in Deft can use: ${error.message}`
              : error.message;
          },
        );
      })
      .finally(() => {
        if (entry.starting === starting) entry.starting = null;
        this.options.onChange();
      });
    entry.starting = starting;
    this.options.onChange();
  }

  /** A connected server went away: its calls in flight fail (the SDK rejects them); restart with backoff. */
  private crashed(entry: Entry, connection: ServerConnection, error: Error): void {
    if (entry.connection !== connection || this.closed) return;
    entry.connection = null;
    entry.lastStderr = connection.stderr.lines();
    // A server that ran a while before dying starts its backoff afresh.
    if (entry.connectedAt && Date.now() - entry.connectedAt > 60_000) entry.restarts = 0;
    entry.restarts++;
    const delay = (this.options.restartDelay ?? defaultDelay)(entry.restarts);
    entry.status = 'failed';
    entry.error =
      delay === null
        ? `${error.message}. It was restarted ${entry.restarts - 1} times and kept failing; restart it from Settings → MCP servers.`
        : `${error.message}. Restarting in ${Math.round(delay / 1000)} s.`;
    if (delay !== null) {
      entry.timer = setTimeout(() => {
        entry.timer = null;
        if (!this.closed && entry.status === 'failed' && !entry.connection) this.start(entry);
      }, delay);
      entry.timer.unref?.();
    }
    this.options.onChange();
  }

  private async stop(entry: Entry): Promise<void> {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = null;
    const connection = entry.connection;
    entry.connection = null;
    entry.starting = null;
    if (connection) {
      entry.lastStderr = connection.stderr.lines();
      await connection.close();
    }
  }

  /** Wait until every server that is starting has connected or failed (at most `timeoutMs`). */
  async whenSettled(timeoutMs = 30_000): Promise<void> {
    await this.syncing;
    const pending = [...this.entries.values()].flatMap((e) => (e.starting ? [e.starting] : []));
    if (!pending.length) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(pending), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Connected servers, with their connection. */
  connected(): Array<{ definition: ServerDefinition; connection: ServerConnection }> {
    return [...this.entries.values()].flatMap((e) =>
      e.status === 'connected' && e.connection ? [{ definition: e.definition, connection: e.connection }] : [],
    );
  }

  /** The live connection of a server, or why there is none. */
  connection(name: string): { connection: ServerConnection } | { reason: string } {
    const entry = this.entries.get(name);
    if (!entry) return { reason: `MCP server "${name}" is no longer configured.` };
    if (entry.status === 'connected' && entry.connection) return { connection: entry.connection };
    return { reason: `MCP server "${name}" is not connected (${entry.status}${entry.error ? `: ${entry.error}` : ''}).` };
  }

  async restart(name: string): Promise<void> {
    const entry = this.require(name);
    await this.stop(entry);
    entry.restarts = 0;
    entry.status = 'starting';
    await this.sync();
  }

  async setEnabled(name: string, enabled: boolean): Promise<void> {
    this.require(name);
    const disabled = new Set(await this.options.gates.disabled());
    if (enabled) disabled.delete(name);
    else disabled.add(name);
    await this.options.gates.setDisabled([...disabled]);
    const entry = this.entries.get(name);
    if (entry && enabled && entry.status === 'disabled') entry.status = 'starting';
    await this.sync();
  }

  async decide(name: string, approved: boolean): Promise<void> {
    const entry = this.require(name);
    if (entry.definition.source !== 'project')
      throw new Error(`"${name}" is not a workspace server: only servers from the workspace's own files are approved.`);
    // An answer given before the folder is trusted would start the server the moment it is.
    if (!(await this.options.gates.trusted()))
      throw new Error(
        `Trust this folder first: "${name}" comes from the workspace's own files, and nothing they define runs in a folder you have not trusted.`,
      );
    await this.options.gates.decide(name, { fingerprint: entry.definition.fingerprint, approved });
    if (approved && entry.status === 'needs-approval') entry.status = 'starting';
    await this.sync();
  }

  /** The connected server offering the prompt run as `/command`, and the prompt. */
  prompt(command: string): { connection: ServerConnection; info: McpPromptInfo } | null {
    for (const entry of this.entries.values()) {
      if (entry.status !== 'connected' || !entry.connection) continue;
      for (const prompt of entry.connection.prompts) {
        const info = promptInfo(entry.definition.name, prompt);
        if (info.command === command) return { connection: entry.connection, info };
      }
    }
    return null;
  }

  private require(name: string): Entry {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`There is no MCP server named "${name}".`);
    return entry;
  }

  overview(deferred: (toolName: string) => boolean): McpOverview {
    const servers: McpServerInfo[] = [...this.entries.values()].map((entry) => {
      const { definition } = entry;
      const config = definition.config;
      const stderr = entry.connection ? entry.connection.stderr.lines() : entry.lastStderr;
      const tools = entry.status === 'connected' && entry.connection ? entry.connection.tools : [];
      return {
        name: definition.name,
        source: definition.source,
        file: definition.file,
        transport: isStdio(config) ? 'stdio' : config.type === 'sse' ? 'sse' : 'http',
        target: isStdio(config) ? [config.command, ...(config.args ?? [])].join(' ') : config.url,
        status: entry.status,
        ...(entry.error ? { error: entry.error } : {}),
        stderr,
        tools: tools.map((t) => {
          const name = mcpToolName(definition.name, t.name);
          return { name, serverTool: t.name, description: (t.description ?? '').trim().split('\n')[0]!.slice(0, 300), deferred: deferred(name) };
        }),
        ...(entry.status === 'needs-auth' && this.options.oauth?.authorizeUrl(definition.name)
          ? { authorizeUrl: this.options.oauth.authorizeUrl(definition.name) }
          : {}),
        prompts: entry.status === 'connected' && entry.connection ? entry.connection.prompts.map((p) => promptInfo(definition.name, p)) : [],
        missingVariables: definition.missing,
        variables: definition.variables,
        definition: definition.written,
      };
    });
    const refused = [...this.entries.values()].flatMap((e) =>
      e.status === 'connected' && e.connection ? e.connection.refusedTools.map((message) => ({ file: e.definition.file, message })) : [],
    );
    return { servers, problems: [...this.problems, ...refused] };
  }

  /** Stop every server (no process is left behind). */
  async close(): Promise<void> {
    this.closed = true;
    await this.syncing?.catch(() => {});
    await Promise.allSettled([...this.entries.values()].map((e) => this.stop(e)));
  }
}
