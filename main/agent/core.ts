import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import type {
  AppEvent,
  Attachment,
  CommandName,
  CommandOutput,
  Commands,
  DeftEvent,
  ProviderSettingsInput,
  PublicSettings,
  SessionEvent,
  StopReason,
  WorkspaceInfo,
} from '../../protocol';
import { CommandError } from './errors';
import { type RetryPolicy, defaultRetryPolicy } from './loop/retry';
import { type TurnOutcome, runTurn } from './loop/turn';
import { ProviderError } from './providers/errors';
import { createProvider } from './providers/index';
import type { ContentPart } from './providers/types';
import { buildSystemPrompt, readAgentsMd, workspaceFacts } from './prompt/system-prompt';
import type { Session } from './sessions/session';
import { SessionStore, isValidSessionId } from './sessions/store';
import { type ProviderConfig, type ProviderOverrides, publicProvider, resolveProviderConfig } from './settings/provider-config';
import type { SecretStore } from './settings/secrets';
import { SettingsStore, secretKeyFor } from './settings/settings-store';
import { builtinTools } from './tools/builtin';
import type { Tool, ToolEnv } from './tools/contract';
import { ToolRegistry } from './tools/registry';

export type CommandHandlers = {
  [K in CommandName]: (input: z.output<Commands[K]['input']>) => Promise<CommandOutput<K>>;
};

export interface CoreOptions {
  home: string;
  /** Absolute, real path of the workspace folder. */
  workspace: string;
  host: WorkspaceInfo['host'];
  secrets: SecretStore;
  /** Provider values that win over saved settings (CLI flags, DEFT_* variables). */
  providerOverrides?: ProviderOverrides;
  fetch?: typeof fetch;
  now?: () => number;
  retry?: RetryPolicy;
  maxSteps?: number;
  abortGraceMs?: number;
  tools?: (env: ToolEnv) => Tool[];
  pickWorkspace?: () => Promise<string | null>;
}

interface ActiveTurn {
  turnId: string;
  controller: AbortController;
  done: Promise<TurnOutcome>;
}

/** The agent core for one workspace: sessions, settings and turns, behind the protocol's commands. */
export class DeftCore {
  readonly handlers: CommandHandlers;
  private readonly store: SessionStore;
  private readonly settings: SettingsStore;
  private readonly loaded = new Map<string, { session: Session; problems: string[] }>();
  private readonly active = new Map<string, ActiveTurn>();
  private readonly listeners = new Set<(event: DeftEvent) => void>();
  private readonly now: () => number;

  constructor(private readonly options: CoreOptions) {
    this.now = options.now ?? Date.now;
    this.store = new SessionStore(options.home, options.workspace, this.now);
    this.settings = new SettingsStore(options.home);
    this.handlers = {
      getWorkspace: async () => ({ path: options.workspace, name: basename(options.workspace) || options.workspace, home: options.home, host: options.host }),
      pickWorkspace: async () => {
        if (!options.pickWorkspace) throw new CommandError('unsupported', 'Opening another folder is only available in the desktop app. Start another web host with --workspace.');
        return { path: await options.pickWorkspace() };
      },
      listSessions: async () => ({ sessions: await this.listSessions() }),
      createSession: async () => {
        const session = await this.store.create();
        this.track(session, []);
        return { session: session.summary() };
      },
      openSession: async ({ sessionId, afterSeq }) => {
        const { session, problems } = await this.session(sessionId);
        return { session: session.summary(), ...session.eventsAfter(afterSeq), problems };
      },
      deleteSession: async ({ sessionId }) => {
        await this.cancel(sessionId);
        await this.active.get(sessionId)?.done;
        this.loaded.delete(sessionId);
        await this.store.delete(this.checkedId(sessionId));
        this.emitApp({ type: 'session.deleted', sessionId });
        return { ok: true as const };
      },
      sendPrompt: async ({ sessionId, text, attachments }) => {
        const { session } = await this.session(sessionId);
        if (!text.trim() && !attachments?.length) throw new CommandError('invalid_request', 'The prompt is empty.');
        if (this.active.has(sessionId)) throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it first.');
        const config = await this.providerConfig();
        if (!config) throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
        const turnId = `turn-${randomUUID().slice(0, 8)}`;
        this.startTurn(session, config, turnId, text, attachments ?? []);
        return { turnId };
      },
      cancelTurn: async ({ sessionId }) => ({ cancelled: await this.cancel(sessionId) }),
      getSettings: async () => this.publicSettings(),
      setSettings: async ({ provider }) => {
        const stored = { kind: provider.kind, baseUrl: provider.baseUrl.replace(/\/+$/, ''), model: provider.model } as Record<string, unknown>;
        if (provider.imageInput !== undefined) stored.imageInput = provider.imageInput;
        if (provider.contextWindow !== undefined) stored.contextWindow = provider.contextWindow;
        await this.settings.update('provider', stored);
        if (provider.apiKey !== undefined) await options.secrets.set(secretKeyFor({ kind: provider.kind, baseUrl: stored.baseUrl as string }), provider.apiKey.trim());
        const settings = await this.publicSettings();
        this.emitApp({ type: 'settings.updated', settings });
        return settings;
      },
      listModels: async ({ provider }) => {
        const config = provider ? await this.configFromInput(provider) : await this.providerConfig();
        if (!config) throw new CommandError('not_configured', 'No model is configured yet.');
        try {
          return { models: await createProvider(config, options.fetch).listModels(AbortSignal.timeout(15_000)) };
        } catch (error) {
          if (error instanceof ProviderError) throw new CommandError(error.code, error.message);
          throw error;
        }
      },
    };
  }

  onEvent(listener: (event: DeftEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the session's running turn (if any) ends. */
  async turnDone(sessionId: string): Promise<TurnOutcome | null> {
    return (await this.active.get(sessionId)?.done) ?? null;
  }

  /** The most recently updated session of this workspace. */
  async latestSessionId(): Promise<string | null> {
    return (await this.store.list())[0]?.id ?? null;
  }

  /** Stop every running turn and write everything to disk. */
  async close(): Promise<void> {
    for (const id of this.active.keys()) await this.cancel(id);
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await Promise.allSettled([...this.loaded.values()].map(({ session }) => session.flush()));
  }

  private emit(event: DeftEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not stop the core or other listeners.
      }
    }
  }

  private emitApp(event: AppEvent): void {
    this.emit(event);
  }

  private checkedId(sessionId: string): string {
    if (!isValidSessionId(sessionId)) throw new CommandError('invalid_request', `"${sessionId}" is not a valid session id.`);
    return sessionId;
  }

  private track(session: Session, problems: string[]): void {
    this.loaded.set(session.id, { session, problems });
    session.subscribe((event: SessionEvent) => this.emit(event));
  }

  private async session(sessionId: string): Promise<{ session: Session; problems: string[] }> {
    const cached = this.loaded.get(this.checkedId(sessionId));
    if (cached) return cached;
    const loaded = await this.store.load(sessionId);
    if (!loaded) throw new CommandError('not_found', `Session ${sessionId} does not exist in this workspace.`);
    this.track(loaded.session, loaded.problems);
    return loaded;
  }

  private async listSessions() {
    const metas = await this.store.list();
    return metas.map((meta) => this.loaded.get(meta.id)?.session.summary() ?? { ...meta, running: false });
  }

  private async providerConfig(): Promise<ProviderConfig | null> {
    return resolveProviderConfig(await this.settings.provider(), this.options.secrets, this.options.providerOverrides);
  }

  private async configFromInput(input: ProviderSettingsInput): Promise<ProviderConfig> {
    const saved = { kind: input.kind, baseUrl: input.baseUrl.replace(/\/+$/, ''), model: input.model };
    const config = (await resolveProviderConfig(saved, this.options.secrets))!;
    if (input.apiKey) return { ...config, apiKey: input.apiKey, apiKeySource: 'stored' };
    return config;
  }

  private async publicSettings(): Promise<PublicSettings> {
    const config = await this.providerConfig();
    return { provider: config ? publicProvider(config) : null, secretStorage: this.options.secrets.kind };
  }

  private async cancel(sessionId: string): Promise<boolean> {
    const turn = this.active.get(sessionId);
    if (!turn || turn.controller.signal.aborted) return false;
    turn.controller.abort(new Error('Cancelled by the user'));
    return true;
  }

  private startTurn(session: Session, config: ProviderConfig, turnId: string, text: string, attachments: Attachment[]): void {
    const controller = new AbortController();
    const started = this.now();
    session.running = true;
    session.noteTurnStarted(text);
    session.emit({ type: 'turn.started', turnId, text, attachments, origin: 'user' });
    session.emit({ type: 'session.updated', session: session.summary() });
    session.appendContext({ role: 'user', content: userContent(text, attachments) });

    const done = this.executeTurn(session, config, turnId, controller.signal).then(async (outcome) => {
      session.emit({
        type: 'turn.ended',
        turnId,
        stopReason: outcome.stopReason,
        ...(outcome.error ? { error: outcome.error } : {}),
        durationMs: this.now() - started,
      });
      session.running = false;
      this.active.delete(session.id);
      session.touch();
      session.emit({ type: 'session.updated', session: session.summary() });
      await session.flush().catch(() => {});
      return outcome;
    });
    this.active.set(session.id, { turnId, controller, done });
  }

  private async executeTurn(session: Session, config: ProviderConfig, turnId: string, signal: AbortSignal): Promise<TurnOutcome> {
    try {
      const provider = createProvider(config, this.options.fetch);
      const env: ToolEnv = { workspace: this.options.workspace, home: this.options.home, sessionId: session.id, sessionDir: session.dir };
      const registry = new ToolRegistry((this.options.tools ?? builtinTools)(env));
      const [facts, agentsMd] = await Promise.all([workspaceFacts(this.options.workspace, new Date(this.now())), readAgentsMd(this.options.workspace)]);
      const tools = registry.schemas();
      return await runTurn({
        turnId,
        provider,
        registry,
        env,
        system: () => buildSystemPrompt({ facts, agentsMd, tools }),
        history: () => session.context,
        append: (message) => session.appendContext(message),
        emit: (event) => session.emit(event),
        checkpoint: () => session.flush(),
        signal,
        retry: this.options.retry ?? defaultRetryPolicy,
        usageTotal: session.usageTotal,
        saveFullOutput: async (toolName, callId, output) => {
          const dir = join(session.dir, 'tool-results');
          await mkdir(dir, { recursive: true, mode: 0o700 });
          const path = join(dir, `${toolName}-${callId.replace(/[^A-Za-z0-9_-]/g, '_')}.txt`);
          await writeFile(path, output, { mode: 0o600 });
          return path;
        },
        ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
        ...(this.options.abortGraceMs !== undefined ? { abortGraceMs: this.options.abortGraceMs } : {}),
      });
    } catch (error) {
      if (error instanceof ProviderError) return { stopReason: 'error', error: { code: error.code, message: error.message } };
      const stopReason: StopReason = signal.aborted ? 'cancelled' : 'error';
      return stopReason === 'cancelled'
        ? { stopReason }
        : { stopReason, error: { code: 'internal', message: `Deft hit an internal error: ${(error as Error)?.message ?? String(error)}` } };
    }
  }
}

function userContent(text: string, attachments: readonly { path: string; name: string }[]): string | ContentPart[] {
  if (!attachments.length) return text;
  const list = attachments.map((a) => `- ${a.name}: ${a.path}`).join('\n');
  return `${text}\n\nAttached files (open images with ReadMediaFile):\n${list}`;
}
