import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CoreContext } from '#contract/capability';
import { environmentServerStarter } from '#infra/lsp/environment-process';
import { localServerStarter, type ServerLauncher, type ServerStarter } from '#infra/lsp/process';
import { remoteBuiltinServers } from '#infra/lsp/remote-servers';
import { type ServerSpec, builtinServers } from '#infra/lsp/server-specs';
import { sandboxedServerLauncher } from './launch';

/** Files larger than this are not sent to a server when read. */
const MAX_SYNC_BYTES = 2 * 1024 * 1024;

/** How long what was found on a machine (its servers, the workspace's marker files) is trusted before looking again. */
const CACHE_MS = 60_000;

/** Files whose presence says the workspace is written in a server's languages (the LSP tool is then offered at once). */
export const MARKERS: Readonly<Record<string, readonly string[]>> = {
  typescript: ['tsconfig.json', 'jsconfig.json', 'package.json'],
  pyright: ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'pyrightconfig.json'],
  gopls: ['go.mod'],
  'rust-analyzer': ['Cargo.toml'],
  clangd: ['compile_commands.json', 'CMakeLists.txt', '.clangd'],
};

/**
 * The machine the workspace's language servers run on, and what the capability needs of it: this one (servers in the
 * OS sandbox, files read here) or the remote one of a folder opened over SSH (servers started there through the
 * Environment, found there, files read there).
 */
export interface ServersPlace {
  /** The remote host (`user@host`), or null on this machine. */
  readonly host: string | null;
  readonly start: ServerStarter;
  /** The servers Deft knows there without configuration, and for languages without one what to install (remote only). */
  builtins(): Promise<{ list: ServerSpec[]; missing: ReadonlyMap<string, string> }>;
  /** The builtins as last found (synchronous, for offering the tool), or null before the first look. */
  builtinsNow(): ServerSpec[] | null;
  /** How a user's server program is found there (undefined: on this machine's PATH). */
  readonly resolveUser?: (program: string) => string | null;
  /** Whether the workspace has a marker file of this server, as last seen (looks again in the background when stale). */
  hasMarkerNow(id: string): boolean;
  hasMarker(id: string): Promise<boolean>;
  /** A file's text to open in its server: null when missing, not a file, or too large. */
  readSmallText(path: string): Promise<string | null>;
}

export interface PlaceOptions {
  launch?: ServerLauncher;
  builtins?: (workspace: string) => ServerSpec[];
}

/** Where the servers of this core's workspace run. */
export function serversPlace(core: CoreContext, options: PlaceOptions): ServersPlace {
  return core.environment.kind === 'local' ? localPlace(core, options) : remotePlace(core);
}

function localPlace(core: CoreContext, options: PlaceOptions): ServersPlace {
  let builtins: { at: number; list: ServerSpec[] } | null = null;
  const find = () => (options.builtins ?? builtinServers)(core.workspace);
  const marked = (id: string) => (MARKERS[id] ?? []).some((m) => existsSync(join(core.workspace, m)));
  return {
    host: null,
    start: localServerStarter(options.launch ?? sandboxedServerLauncher(core.workspaceSandbox)),
    builtins: async () => {
      if (!builtins || core.now() - builtins.at > CACHE_MS) builtins = { at: core.now(), list: find() };
      return { list: builtins.list, missing: new Map() };
    },
    builtinsNow: () => builtins?.list ?? find(),
    hasMarkerNow: marked,
    hasMarker: async (id) => marked(id),
    readSmallText: readLocalSmallText,
  };
}

/** A file of this machine to open in its server: null when missing, not a file, or too large. */
export async function readLocalSmallText(path: string): Promise<string | null> {
  const stats = await stat(path).catch(() => null);
  if (!stats?.isFile() || stats.size > MAX_SYNC_BYTES) return null;
  return readFile(path, 'utf8').catch(() => null);
}

function remotePlace(core: CoreContext): ServersPlace {
  const environment = core.environment;
  const workspace = core.workspace;
  let builtins: { at: number; found: Promise<{ list: ServerSpec[]; missing: ReadonlyMap<string, string> }> } | null = null;
  let lastList: ServerSpec[] | null = null;
  let markers: { at: number; present: Set<string> } | null = null;
  let looking: Promise<Set<string>> | null = null;
  const lookForMarkers = () =>
    (looking ??= (async () => {
      const names = [...new Set(Object.values(MARKERS).flat())];
      const seen = await Promise.all(
        names.map((n) =>
          environment.stat(environment.path.join(workspace, n)).then(
            () => n,
            () => null,
          ),
        ),
      );
      const present = new Set(seen.filter((n): n is string => n !== null));
      markers = { at: core.now(), present };
      return present;
    })().finally(() => (looking = null)));
  const stale = () => !markers || core.now() - markers.at > CACHE_MS;
  const has = (present: Set<string>, id: string) => (MARKERS[id] ?? []).some((m) => present.has(m));
  return {
    host: environment.label,
    start: environmentServerStarter(environment, core.remoteWorkspaceSandbox),
    builtins: () => {
      if (!builtins || core.now() - builtins.at > CACHE_MS) {
        const found = remoteBuiltinServers(environment, workspace).then((r) => {
          lastList = r.list;
          return r;
        });
        // A failed look (the link dropped) is tried again next time.
        found.catch(() => (builtins = null));
        builtins = { at: core.now(), found };
      }
      return builtins.found;
    },
    builtinsNow: () => lastList,
    // Run there as given: the PATH there finds a bare name.
    resolveUser: (program) => program,
    hasMarkerNow: (id) => {
      if (stale()) void lookForMarkers().catch(() => {});
      return markers ? has(markers.present, id) : false;
    },
    hasMarker: async (id) => has(stale() ? await lookForMarkers() : markers!.present, id),
    readSmallText: async (path) => {
      try {
        const stats = await environment.stat(path);
        if (!stats.isFile() || stats.size > MAX_SYNC_BYTES) return null;
        return await environment.readText(path);
      } catch {
        return null;
      }
    },
  };
}
