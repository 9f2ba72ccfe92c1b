import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LspStatus } from '#protocol';
import type { CoreContext, Capability, CapabilityFactory } from '#contract/capability';
import { languageFamily } from '#infra/lsp/languages';
import type { ServerLauncher } from '#infra/lsp/process';
import { type ServerSpec, builtinServers, userServers } from '#infra/lsp/server-specs';
import { LanguageServers } from '#infra/lsp/servers';
import { TrustStore } from '#infra/settings/trust';
import { sessionCodeChecks, servesFile } from './code-checks';
import { sandboxedServerLauncher } from './launch';
import { type LspSettings, readLspSettings, setLanguageEnabled } from './settings';
import { lspTool } from './tools/lsp/lsp';

export interface LspCapabilityOptions {
  /** How servers start (default: in the workspace's OS sandbox). */
  launch?: ServerLauncher;
  /** The servers Deft knows without configuration (default: builtinServers). */
  builtins?: (workspace: string) => ServerSpec[];
  backoffMs?: (attempt: number) => number;
}

/** Files whose presence says the workspace is written in a server's languages (the LSP tool is then offered at once). */
const MARKERS: Readonly<Record<string, readonly string[]>> = {
  typescript: ['tsconfig.json', 'jsconfig.json', 'package.json'],
  pyright: ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'pyrightconfig.json'],
  gopls: ['go.mod'],
  'rust-analyzer': ['Cargo.toml'],
  clangd: ['compile_commands.json', 'CMakeLists.txt', '.clangd'],
};

const BUILTIN_CACHE_MS = 60_000;

/**
 * Code intelligence: language servers (typescript-language-server, pyright, gopls, rust-analyzer, clangd, the user's
 * `lsp.servers`) started when the agent first reads or writes a file of their language — only in a trusted folder, in
 * the OS sandbox — the errors a Write or Edit introduced added to its result, and the LSP tool.
 */
export function createLspCapability(options: LspCapabilityOptions = {}): CapabilityFactory {
  return (core: CoreContext): Capability => {
    const trust = new TrustStore(core.home, core.place);
    let builtins: { at: number; list: ServerSpec[] } | null = null;
    let problems: string[] = [];
    let lastSettings: LspSettings | null = null;
    const settings = async () => (lastSettings = await readLspSettings(core.home));
    const allSpecs = async (): Promise<ServerSpec[]> => {
      const s = await settings();
      const user = userServers(s.servers, core.workspace);
      problems = user.problems;
      if (!builtins || core.now() - builtins.at > BUILTIN_CACHE_MS) builtins = { at: core.now(), list: (options.builtins ?? builtinServers)(core.workspace) };
      const userIds = new Set(user.servers.map((u) => u.id));
      return [...user.servers, ...builtins.list.filter((b) => !userIds.has(b.id))];
    };
    // What may run now: nothing before the folder is trusted (a server runs the repository's code: its typescript,
    // tsserver plugins named in tsconfig.json, the Python interpreter pyright is pointed at), nothing when turned off.
    const specs = async (): Promise<ServerSpec[]> => {
      const s = await settings();
      if (!s.enabled || !(await trust.get()).trusted) return [];
      return allSpecs();
    };
    const notices: string[] = [];
    const told = new Map<string, number>();
    const servers = new LanguageServers({
      workspace: core.workspace,
      launch: options.launch ?? sandboxedServerLauncher(core.workspaceSandbox),
      specs,
      idleMs: () => (lastSettings ?? { idleMinutes: 10 }).idleMinutes * 60_000,
      ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
      onNotice: (message) => notices.push(message),
    });
    // The LSP tool: inline when a server for the workspace's languages may run (a trusted folder with a marker file of
    // a known server's language, or servers of the user's own), else deferred (loaded with select_tools); none when
    // turned off or in an untrusted folder.
    const offer = (): 'inline' | 'deferred' | 'none' => {
      if (lastSettings && !lastSettings.enabled) return 'none';
      // Before the folder is trusted no server may start: the tool could only refuse.
      if (!trust.trustedNow()) return 'none';
      const list = builtins?.list ?? (options.builtins ?? builtinServers)(core.workspace);
      return list.some((s) => (MARKERS[s.id] ?? []).some((m) => existsSync(join(core.workspace, m)))) || hasUserServers ? 'inline' : 'deferred';
    };
    let hasUserServers = false;
    const refresh = async () => {
      const s = await settings();
      hasUserServers = userServers(s.servers, core.workspace).servers.length > 0;
    };

    const workspaceClients = async () => {
      const running = servers.running();
      if (running.length) return running;
      // None yet: start the servers the workspace's marker files point to.
      const list = (await specs()).filter((s) => (MARKERS[s.id] ?? []).some((m) => existsSync(join(core.workspace, m))));
      const started = await Promise.all(list.map((s) => servers.start(s)));
      return started.flatMap((r) => (r.client ? [r.client] : []));
    };

    const status = async (): Promise<LspStatus> => {
      const s = await settings();
      const trusted = (await trust.get()).trusted;
      const known = await allSpecs();
      const states = await servers.states();
      const disabled = (languages: readonly string[]) =>
        languages.length > 0 && languages.every((l) => s.disabledLanguages.some((d) => languageFamily(d) === languageFamily(l)));
      return {
        enabled: s.enabled,
        trusted,
        servers: known.map((spec) => {
          const state = states.find((st) => st.id === spec.id);
          return {
            id: spec.id,
            languages: [...spec.languages],
            source: spec.source,
            state: disabled(spec.languages) ? ('disabled' as const) : (state?.state ?? 'not-started'),
            ...(state?.sandboxed !== undefined ? { sandboxed: state.sandboxed } : {}),
            ...(state?.pid ? { pid: state.pid } : {}),
            ...(state?.lastError ? { lastError: state.lastError } : {}),
            crashes: state?.crashes ?? 0,
          };
        }),
        disabledLanguages: s.disabledLanguages,
        problems,
      };
    };

    return {
      name: 'lsp',
      codeChecks: (session) =>
        sessionCodeChecks({
          workspace: core.workspace,
          servers,
          settings,
          inject: (text) => session.inject(text),
          takeNotices: () => {
            const from = told.get(session.id) ?? 0;
            told.set(session.id, notices.length);
            return notices.slice(from);
          },
        }),
      tools: () => {
        const how = offer();
        if (how === 'none') return [];
        const tool = lspTool({
          clientFor: async (path) => {
            if (!(await trust.get()).trusted)
              return {
                client: null,
                reason: 'Language servers start only in a trusted folder (they run code the repository ships): the user can trust this folder in the window.',
              };
            if (!servesFile(await settings(), path))
              return { client: null, reason: 'Code intelligence for this language is turned off in the settings (Settings → Code intelligence).' };
            return servers.clientFor(path);
          },
          workspaceClients,
          warnings: async () => (await settings()).warnings,
        });
        return [how === 'deferred' ? { ...tool, disclosure: 'deferred' as const } : tool];
      },
      onSessionLoaded: () => refresh(),
      // Not awaited: a hook that returns a promise holds back the later capabilities' onTurnStart (checkpoints hands
      // the model its rewind note there, before the turn's first step).
      onTurnStart: () => void refresh(),
      commands: {
        lspStatus: () => status(),
        setLspLanguage: async ({ language, enabled }) => {
          await setLanguageEnabled(core.home, language, enabled);
          if (!enabled) {
            for (const st of await servers.states()) {
              const s = await settings();
              if (st.languages.every((l) => s.disabledLanguages.some((d) => languageFamily(d) === languageFamily(l)))) await servers.stop(st.id);
            }
          }
          return status();
        },
      },
      close: () => servers.close(),
    };
  };
}

export const lspCapability: CapabilityFactory = createLspCapability();
