import { picomatchPackage } from '#infra/platform/on-demand';
import { relative, sep } from 'node:path';
import type { LanguageClient } from './client';
import { languageFamily, languageOf } from './languages';
import { type ServerLauncher, type ServerStarter, localServerStarter } from './process';
import type { ServerSpec } from './server-specs';

/** Where one server stands, for Settings → Code intelligence and the tool's errors. */
export interface ServerState {
  id: string;
  languages: readonly string[];
  source: ServerSpec['source'];
  state: 'not-started' | 'starting' | 'running' | 'stopped' | 'restarting' | 'off';
  sandboxed?: boolean;
  pid?: number;
  lastError?: string;
  crashes: number;
}

export interface LanguageServersOptions {
  workspace: string;
  /** How a server's process starts (on this machine, or on the workspace's through its Environment)… */
  start?: ServerStarter;
  /** …or, for a server on this machine, how it is planned (wrapped in localServerStarter). */
  launch?: ServerLauncher;
  /** The servers that may run now (read on every use: settings and trust may change). */
  specs(): Promise<ServerSpec[]>;
  /** A server unused this long is shut down (it starts again when next needed). */
  idleMs(): number;
  /** Delay before the n-th restart (1-based) after a crash. */
  backoffMs?(attempt: number): number;
  /** Crashes after which a server is turned off for the session. */
  maxCrashes?: number;
  /** Told once when a server is turned off after crashing, and whenever a state changes (for the window). */
  onNotice?(message: string): void;
  onChange?(): void;
  now?(): number;
}

interface Entry {
  spec: ServerSpec;
  client: LanguageClient | null;
  starting: Promise<LanguageClient> | null;
  idle: NodeJS.Timeout | null;
  crashes: number;
  retryAt: number;
  off: boolean;
  lastError?: string;
  stopping: boolean;
}

const defaultBackoff = (attempt: number) => Math.min(30_000, 1_000 * 2 ** (attempt - 1));

/**
 * The workspace's language servers, each started when a file of its language is first needed, shut down when idle,
 * restarted with backoff after a crash, and turned off (with one notice) after repeated crashes.
 */
export class LanguageServers {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  private readonly starter: ServerStarter;

  constructor(private readonly options: LanguageServersOptions) {
    const starter = options.start ?? (options.launch ? localServerStarter(options.launch) : null);
    if (!starter) throw new Error('LanguageServers needs `start` or `launch`.');
    this.starter = starter;
  }

  /** The server spec that serves a file, or null. */
  async specFor(path: string): Promise<ServerSpec | null> {
    const specs = await this.options.specs();
    const language = languageOf(path);
    const rel = relative(this.options.workspace, path).split(sep).join('/');
    // The user's servers first: one configured for a language replaces Deft's own.
    const ordered = [...specs.filter((s) => s.source === 'user'), ...specs.filter((s) => s.source === 'builtin')];
    return (
      ordered.find(
        (s) =>
          (language && s.languages.some((l) => l === language || languageFamily(l) === languageFamily(language))) ||
          (s.globs?.length && !rel.startsWith('..') && picomatchPackage()(s.globs as string[], { dot: true })(rel)),
      ) ?? null
    );
  }

  /** The running client for a file, starting its server if needed; null when no server serves it or it is off. */
  async clientFor(path: string): Promise<{ client: LanguageClient } | { client: null; reason: string }> {
    if (this.closed) return { client: null, reason: 'Code intelligence has shut down.' };
    const spec = await this.specFor(path);
    if (!spec) return { client: null, reason: 'No language server serves this kind of file.' };
    return this.start(spec);
  }

  /** The running client of a server, starting it if needed. */
  async start(spec: ServerSpec): Promise<{ client: LanguageClient } | { client: null; reason: string }> {
    const entry = this.entry(spec);
    if (entry.off)
      return { client: null, reason: `${spec.id} was turned off after crashing ${entry.crashes} times${entry.lastError ? `: ${entry.lastError}` : '.'}` };
    if (entry.client?.running) {
      this.used(entry);
      return { client: entry.client };
    }
    const now = this.now();
    if (entry.retryAt > now)
      return {
        client: null,
        reason: `${spec.id} crashed and restarts in ${Math.ceil((entry.retryAt - now) / 1000)} s${entry.lastError ? ` (${entry.lastError})` : ''}.`,
      };
    try {
      const client = await (entry.starting ??= this.launch(entry));
      this.used(entry);
      return { client };
    } catch (error) {
      return { client: null, reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /** What every known server is doing. */
  async states(): Promise<ServerState[]> {
    const specs = await this.options.specs().catch(() => []);
    for (const spec of specs) this.entry(spec);
    return [...this.entries.values()].map((e) => ({
      id: e.spec.id,
      languages: e.spec.languages,
      source: e.spec.source,
      state: e.off
        ? 'off'
        : e.starting
          ? 'starting'
          : e.client?.running
            ? 'running'
            : e.retryAt > this.now()
              ? 'restarting'
              : e.client
                ? 'stopped'
                : 'not-started',
      ...(e.client?.running ? { sandboxed: e.client.sandboxed, ...(e.client.pid ? { pid: e.client.pid } : {}) } : {}),
      ...(e.lastError ? { lastError: e.lastError } : {}),
      crashes: e.crashes,
    }));
  }

  /** The clients running now. */
  running(): LanguageClient[] {
    return [...this.entries.values()].flatMap((e) => (e.client?.running ? [e.client] : []));
  }

  /** Stop one server (it starts again when next needed) or, with `off`, keep it off for the session. */
  async stop(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry?.client) return;
    entry.stopping = true;
    this.clearIdle(entry);
    await entry.client.stop().catch(() => {});
    this.options.onChange?.();
  }

  /** Stop every server (the session or the core is closing). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.entries.keys()].map((id) => this.stop(id)));
  }

  private entry(spec: ServerSpec): Entry {
    let entry = this.entries.get(spec.id);
    if (!entry) {
      entry = { spec, client: null, starting: null, idle: null, crashes: 0, retryAt: 0, off: false, stopping: false };
      this.entries.set(spec.id, entry);
    } else if (!entry.client?.running && !entry.starting) entry.spec = spec;
    return entry;
  }

  private async launch(entry: Entry): Promise<LanguageClient> {
    // The JSON-RPC packages load with the first server, not with every run.
    const { LanguageClient } = await import('./client');
    const client = new LanguageClient(entry.spec, this.options.workspace, this.starter);
    entry.stopping = false;
    this.options.onChange?.();
    try {
      await client.start();
    } catch (error) {
      entry.starting = null;
      this.crashed(entry, error instanceof Error ? error.message : String(error));
      throw error;
    }
    entry.client = client;
    entry.starting = null;
    delete entry.lastError;
    void client.exit?.then(({ code, signal }) => {
      this.clearIdle(entry);
      if (entry.client !== client) return;
      if (entry.stopping || this.closed) {
        this.options.onChange?.();
        return;
      }
      this.crashed(entry, `exited unexpectedly (${signal ?? `code ${code}`})${client.stderrText()}`);
    });
    this.options.onChange?.();
    return client;
  }

  private crashed(entry: Entry, message: string): void {
    entry.crashes += 1;
    entry.lastError = message.length > 600 ? `${message.slice(0, 600)}…` : message;
    const max = this.options.maxCrashes ?? 3;
    if (entry.crashes >= max) {
      entry.off = true;
      this.options.onNotice?.(
        `The ${entry.spec.id} language server was turned off for this session after ${entry.crashes} failures. Last error: ${entry.lastError}`,
      );
    } else entry.retryAt = this.now() + (this.options.backoffMs ?? defaultBackoff)(entry.crashes);
    this.options.onChange?.();
  }

  private used(entry: Entry): void {
    this.clearIdle(entry);
    const ms = this.options.idleMs();
    if (ms <= 0 || !Number.isFinite(ms)) return;
    entry.idle = setTimeout(() => void this.stop(entry.spec.id), ms);
    entry.idle.unref();
  }

  private clearIdle(entry: Entry): void {
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }
}
