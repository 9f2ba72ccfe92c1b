import type { LspStatus } from '#protocol';
import type { CoreContext, Capability, CapabilityFactory } from '#contract/capability';
import { languageFamily, languageOf } from '#infra/lsp/languages';
import type { ServerLauncher } from '#infra/lsp/process';
import { type ServerSpec, userServers } from '#infra/lsp/server-specs';
import { LanguageServers } from '#infra/lsp/servers';
import { TrustStore } from '#infra/settings/trust';
import { sessionCodeChecks, servesFile } from './code-checks';
import { type LspSettings, readLspSettings, setLanguageEnabled } from './settings';
import { lspTool } from './tools/lsp/lsp';
import { serversPlace } from './where';

export interface LspCapabilityOptions {
  /** How servers start on this machine (default: in the workspace's OS sandbox). */
  launch?: ServerLauncher;
  /** The servers Deft knows without configuration on this machine (default: builtinServers). */
  builtins?: (workspace: string) => ServerSpec[];
  backoffMs?: (attempt: number) => number;
}

/**
 * Code intelligence: language servers (typescript-language-server, pyright, gopls, rust-analyzer, clangd, the user's
 * `lsp.servers`) started when the agent first reads or writes a file of their language — only in a trusted folder, in
 * the OS sandbox — the errors a Write or Edit introduced added to its result, and the LSP tool. On a remote folder
 * the servers are found and run on the remote machine (where.ts), unsandboxed there.
 */
export function createLspCapability(options: LspCapabilityOptions = {}): CapabilityFactory {
  return (core: CoreContext): Capability => {
    const trust = new TrustStore(core.home, core.place);
    const place = serversPlace(core, options);
    let problems: string[] = [];
    let missing: ReadonlyMap<string, string> = new Map();
    let lastSettings: LspSettings | null = null;
    const settings = async () => (lastSettings = await readLspSettings(core.home));
    const allSpecs = async (): Promise<ServerSpec[]> => {
      const s = await settings();
      const user = userServers(s.servers, core.workspace, undefined, place.resolveUser);
      problems = user.problems;
      // On a remote folder nothing is run there, not even the look for servers, before it is trusted.
      const builtins = place.host && !(await trust.get()).trusted ? { list: [], missing: new Map<string, string>() } : await place.builtins();
      missing = builtins.missing;
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
      start: place.start,
      specs,
      idleMs: () => (lastSettings ?? { idleMinutes: 10 }).idleMinutes * 60_000,
      ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
      onNotice: (message) => notices.push(message),
    });
    // What to install where, for a file no server serves because none was found on the remote machine.
    const missingFor = async (path: string): Promise<string | null> => {
      const language = languageOf(path);
      if (!language || !place.host) return null;
      const s = await settings();
      if (!s.enabled || !(await trust.get()).trusted) return null;
      await allSpecs();
      if (!missing.size || (await servers.specFor(path))) return null;
      return missing.get(languageFamily(language)) ?? null;
    };
    // The LSP tool: inline when a server for the workspace's languages may run (a trusted folder with a marker file of
    // a known server's language, or servers of the user's own), else deferred (loaded with select_tools); none when
    // turned off or in an untrusted folder.
    const offer = (): 'inline' | 'deferred' | 'none' => {
      if (lastSettings && !lastSettings.enabled) return 'none';
      // Before the folder is trusted no server may start: the tool could only refuse.
      if (!trust.trustedNow()) return 'none';
      const list = place.builtinsNow() ?? [];
      return list.some((s) => place.hasMarkerNow(s.id)) || hasUserServers ? 'inline' : 'deferred';
    };
    let hasUserServers = false;
    const refresh = async () => {
      const s = await settings();
      hasUserServers = userServers(s.servers, core.workspace, undefined, place.resolveUser).servers.length > 0;
      // On a remote folder: look there for its servers and marker files (one exec and a batch of stats, cached), so
      // the tool is offered as it would be locally from the first step.
      if (place.host && s.enabled && (await trust.get()).trusted) await Promise.all([specs(), place.hasMarker('typescript')]).catch(() => {});
    };

    const workspaceClients = async () => {
      const running = servers.running();
      if (running.length) return running;
      // None yet: start the servers the workspace's marker files point to.
      const all = await specs();
      const marked = await Promise.all(all.map((s) => place.hasMarker(s.id)));
      const list = all.filter((_, i) => marked[i]);
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
      // Languages a remote machine has no server for (and no server of the user's serves): what to install there.
      const served = new Set(known.flatMap((spec) => spec.languages.map(languageFamily)));
      const absent = [...missing.entries()].filter(([family]) => !served.has(family) && !disabled([family])).map(([, text]) => text);
      return {
        ...(place.host ? { host: place.host } : {}),
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
        problems: [...problems, ...new Set(absent)],
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
          readSmallText: (path) => place.readSmallText(path),
          missingServer: missingFor,
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
            const absent = await missingFor(path);
            return absent ? { client: null, reason: absent } : servers.clientFor(path);
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
