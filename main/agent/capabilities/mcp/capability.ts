import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CommandError } from '#contract/errors';
import type { CoreContext, Capability, CapabilityFactory } from '#contract/capability';
import type { HostWarning } from '#contract/host';
import type { Tool } from '#contract/tool';
import { writeFileAtomic } from '#infra/platform/files';
import { SettingsStore } from '#infra/settings/settings-store';
import { TrustStore } from '#infra/settings/trust';
import { namesAllowedInSettings } from './approvals';
import { checkEntry, parseMcpFile } from './config';
import { type McpSandboxChoice, type StdioLauncher, remoteSandboxedLauncher, sandboxedLauncher } from './launch';
import { mcpToolName } from './naming';
import { promptArguments, promptText } from './prompts';
import { McpOAuth } from './oauth';
import { McpServers } from './servers';
import { mcpTool } from './tools';

/** With more MCP tools than this in total, their schemas stay out of the request until selected. */
export const DEFAULT_DEFER_ABOVE = 30;

export interface McpCapabilityOptions {
  /** `deft run --mcp-config FILE` (absolute paths). */
  extraConfigs?: readonly string[];
  /**
   * Headless (deft run): wait for the servers before the first turn, and warn through the host
   * (HostCapabilities.warn) of what was skipped (with how to approve it) or failed. Nobody can approve a workspace
   * server there: only those approved before, or allowed by name, start.
   */
  headless?: boolean;
  /** `deft run --mcp-server NAME`: workspace servers the user allows for this run by name. */
  allowServers?: readonly string[];
  launch?: StdioLauncher;
  env?: Readonly<Record<string, string | undefined>>;
  restartDelay?: (attempt: number) => number | null;
  /** Hands the host a way to call one MCP tool by its full name (deft run --permission-prompt-tool). */
  exposeToolCaller?: (caller: McpToolCaller) => void;
}

/** Call an MCP tool by its `mcp__server__tool` name: its text content, or why it could not be called. */
export type McpToolCaller = (
  fullName: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<{ ok: true; text: string; isError: boolean } | { ok: false; reason: string }>;

interface McpSettings {
  disabled: string[];
  deferAbove: number;
  sandbox: McpSandboxChoice;
}

const SANDBOX_CHOICES: readonly McpSandboxChoice[] = ['project', 'all', 'off'];

/**
 * MCP: servers from `~/.deft/mcp.json`, the workspace's `.mcp.json` and `.deft/mcp.json` (only once the
 * folder is trusted, and each server once approved) and `--mcp-config` files; their tools as `mcp__*`
 * tools (deferred when many); the commands of Settings → MCP servers.
 */
export function createMcpCapability(options: McpCapabilityOptions = {}): CapabilityFactory {
  return (core: CoreContext): Capability => {
    const settings = new SettingsStore(core.home);
    const trust = new TrustStore(core.home, core.place);
    const readSettings = async (): Promise<McpSettings> => {
      const raw = (await settings.readRaw()).mcp as { disabled?: unknown; deferAbove?: unknown; sandbox?: unknown } | undefined;
      const disabled = Array.isArray(raw?.disabled) ? raw.disabled.filter((n): n is string => typeof n === 'string') : [];
      const deferAbove = typeof raw?.deferAbove === 'number' && raw.deferAbove >= 0 ? raw.deferAbove : DEFAULT_DEFER_ABOVE;
      const sandbox = SANDBOX_CHOICES.find((c) => c === raw?.sandbox) ?? 'project';
      return { disabled, deferAbove, sandbox };
    };
    let current: McpSettings = { disabled: [], deferAbove: DEFAULT_DEFER_ABOVE, sandbox: 'project' };
    const oauth = new McpOAuth({ secrets: core.secrets, workspace: core.workspace, onSignedIn: (name) => void servers.restart(name).catch(() => {}) });
    const servers: McpServers = new McpServers({
      oauth,
      home: core.home,
      workspace: core.workspace,
      env: options.env ?? process.env,
      ...(options.extraConfigs ? { extraConfigs: options.extraConfigs } : {}),
      ...(options.restartDelay ? { restartDelay: options.restartDelay } : {}),
      environment: core.environment,
      launch: options.launch ?? sandboxedLauncher(core.workspaceSandbox, async () => (await readSettings()).sandbox),
      // A remote folder's own servers start there, in that machine's sandbox (`mcp.sandbox` decides, as here).
      ...(core.environment.kind !== 'local'
        ? { remoteLaunch: remoteSandboxedLauncher(core.remoteWorkspaceSandbox, async () => (await readSettings()).sandbox) }
        : {}),
      clientVersion: '0.1.0',
      gates: {
        trusted: async () => (await trust.get()).trusted,
        decisions: () => trust.mcpDecisions(),
        decide: (name, decision) => trust.decideMcpServer(name, decision),
        disabled: async () => (current = await readSettings()).disabled,
        allowedByName: async () => [...(options.allowServers ?? []), ...(await namesAllowedInSettings(core.home))],
        setDisabled: async (names) => {
          const raw = (await settings.readRaw()).mcp;
          await settings.update('mcp', { ...(raw && typeof raw === 'object' ? raw : {}), disabled: names });
        },
      },
      onChange: () => core.emitApp({ type: 'mcp.updated', overview: overview() }),
    });

    const isDeferred = (() => {
      const total = () => servers.connected().reduce((n, s) => n + s.connection.tools.length, 0);
      return (server: { config: { defer?: boolean | undefined } }) => server.config.defer === true || total() > current.deferAbove;
    })();
    const deferredNames = (): Set<string> => {
      const names = new Set<string>();
      for (const { definition, connection } of servers.connected())
        if (isDeferred(definition)) for (const t of connection.tools) names.add(mcpToolName(definition.name, t.name));
      return names;
    };
    const overview = () => {
      const deferred = deferredNames();
      return servers.overview((name) => deferred.has(name));
    };
    const tools = (): Tool[] =>
      servers.connected().flatMap(({ definition, connection }) => {
        const deferred = isDeferred(definition);
        return connection.tools.map((tool) => mcpTool(definition, tool, deferred, { connection: (name) => servers.connection(name) }));
      });

    options.exposeToolCaller?.(async (fullName, args, signal) => {
      for (const { definition, connection } of servers.connected()) {
        const tool = connection.tools.find((t) => mcpToolName(definition.name, t.name) === fullName);
        if (!tool) continue;
        try {
          const result = await connection.callTool(tool.name, args, { signal, timeoutMs: 60_000, onProgress: () => {} });
          const content = Array.isArray(result.content) ? result.content : [];
          const text = content.map((c) => (c && typeof c === 'object' && 'text' in c && typeof c.text === 'string' ? c.text : '')).join('');
          return { ok: true, text, isError: result.isError === true };
        } catch (error) {
          return { ok: false, reason: (error as Error).message };
        }
      }
      return { ok: false, reason: `no connected MCP server offers ${fullName}` };
    });

    let lastSync = 0;
    const syncSoon = () => {
      if (core.now() - lastSync < 2_000) return;
      lastSync = core.now();
      void servers.sync().catch(() => {});
    };
    const warned = new Set<string>();
    /** Headless, what was skipped or failed is said once through the host (the window shows it in Settings instead). */
    const warnHeadless = () => {
      const warn = core.host.warn;
      if (!warn) return;
      const once = (key: string, warning: HostWarning) => {
        if (warned.has(key)) return;
        warned.add(key);
        warn(warning);
      };
      const { servers: list, problems } = overview();
      for (const p of problems) once(`${p.file}:${p.message}`, { kind: 'config-problem', file: p.file, message: p.message });
      for (const s of list) {
        if (s.status === 'untrusted') once(`${s.name}:${s.status}`, { kind: 'mcp-server-untrusted', server: s.name, file: s.file });
        else if (s.status === 'needs-approval')
          once(`${s.name}:${s.status}`, { kind: 'mcp-server-needs-approval', server: s.name, file: s.file, target: s.target });
        else if (s.status === 'denied') once(`${s.name}:${s.status}`, { kind: 'mcp-server-denied', server: s.name, file: s.file });
        else if (s.status === 'failed' || s.status === 'needs-auth')
          once(`${s.name}:${s.status}`, {
            kind: 'mcp-server-unavailable',
            server: s.name,
            error: s.error ?? s.status,
            ...(s.authorizeUrl ? { signInUrl: s.authorizeUrl } : {}),
          });
      }
    };
    const withOverview = async (action: () => Promise<void>) => {
      try {
        await action();
      } catch (error) {
        if (error instanceof CommandError) throw error;
        throw new CommandError('invalid_request', (error as Error).message);
      }
      return overview();
    };

    return {
      name: 'mcp',
      tools: () => {
        syncSoon();
        return tools();
      },
      onSessionLoaded: async () => {
        lastSync = core.now();
        const synced = servers.sync();
        if (!options.headless) {
          void synced.catch(() => {});
          return;
        }
        await synced;
        await servers.whenSettled();
        warnHeadless();
      },
      commands: {
        listMcpServers: async () => {
          await servers.sync();
          return overview();
        },
        setMcpServerEnabled: ({ name, enabled }) => withOverview(() => servers.setEnabled(name, enabled)),
        restartMcpServer: ({ name }) => withOverview(() => servers.restart(name)),
        decideMcpServer: ({ name, approved }) => withOverview(() => servers.decide(name, approved)),
        saveMcpServer: ({ name, definition }) =>
          withOverview(async () => {
            const checked = checkEntry(name, definition);
            if (!checked.ok) throw new CommandError('invalid_request', checked.message);
            await saveUserServer(join(core.home, 'mcp.json'), name, definition);
            await servers.sync();
          }),
        runMcpPrompt: async ({ sessionId, command, args }) => {
          const session = await core.session(sessionId);
          const found = servers.prompt(command);
          if (!found) throw new CommandError('not_found', `No connected MCP server offers /${command}. Settings → MCP servers shows each server's state.`);
          let named: Record<string, string>;
          try {
            named = promptArguments(found.info, args ?? '');
          } catch (error) {
            throw new CommandError('invalid_request', (error as Error).message);
          }
          let text: string;
          try {
            text = promptText(await found.connection.getPrompt(found.info.serverPrompt, named));
          } catch (error) {
            throw new CommandError('internal', `The MCP server could not give /${command}: ${(error as Error).message}`);
          }
          if (!text.trim()) throw new CommandError('internal', `The MCP server gave /${command} as an empty prompt; nothing was sent.`);
          const typed = `/${command}${args?.trim() ? ` ${args.trim()}` : ''}`;
          const turnId = await session.startTurn({ text: typed, modelText: text, origin: 'user' });
          if (!turnId) {
            if (session.running)
              throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it, then run the prompt again.');
            throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
          }
          return { turnId };
        },
      },
      close: async () => {
        await servers.close();
        await oauth.close();
      },
    };
  };
}

/** Add or replace one entry of the user's MCP file, keeping the rest of it as it was. */
async function saveUserServer(file: string, name: string, definition: Record<string, unknown>): Promise<void> {
  let root: Record<string, unknown>;
  let text: string | null = null;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    // A missing file starts empty.
  }
  if (text !== null) {
    const parsed = parseMcpFile(text);
    if (!parsed.ok) throw new CommandError('invalid_request', `${file} ${parsed.message}; fix it by hand before adding servers here.`);
    root = JSON.parse(text) as Record<string, unknown>;
    root.mcpServers = { ...parsed.servers, [name]: definition };
  } else root = { mcpServers: { [name]: definition } };
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, JSON.stringify(root, null, 2) + '\n', 0o600);
}

export const mcpCapability: CapabilityFactory = createMcpCapability();

/** `capabilities` with the MCP capability replaced by one using `options` (e.g. `--mcp-config`, headless). */
export function withMcpOptions(capabilities: readonly CapabilityFactory[], options: McpCapabilityOptions): CapabilityFactory[] {
  const replacement = createMcpCapability(options);
  return capabilities.includes(mcpCapability) ? capabilities.map((f) => (f === mcpCapability ? replacement : f)) : [...capabilities, replacement];
}
