import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import type { AppEvent, CommandName, CommandOutput, Commands, DeftEvent, ProviderSettingsInput, PublicSettings, SessionEvent, WorkspaceInfo } from '../../../protocol';
import { ContextControl, DEFAULT_CONTEXT_WINDOW, type StepSetup, newCompactionId } from './compaction/context-keeper';
import { CommandError } from '../contract/errors';
import type { Authorization, ResolvedCall } from '../contract/calls';
import type { CommandHandlers } from '../contract/commands';
import type { CoreContext, Feature, FeatureFactory, SessionHandle, TurnOutcome, TurnPrompt } from '../contract/feature';
import { readSlot } from '../contract/state';
import { type RetryPolicy, defaultRetryPolicy } from '../infra/providers/retry';
import { runTurn } from './loop/turn';
import { ProviderError } from '../infra/providers/errors';
import { createProvider } from '../infra/providers/index';
import type { ContentPart, ModelMessage } from '../infra/providers/types';
import { buildSystemPrompt, readAgentsMd, workspaceFacts } from './prompt/system-prompt';
import type { Session } from '../infra/sessions/session';
import { SessionStore, isValidSessionId } from '../infra/sessions/store';
import { type ProviderConfig, type ProviderOverrides, publicProvider, resolveProviderConfig } from '../infra/settings/provider-config';
import type { SecretStore } from '../infra/settings/secrets';
import { SettingsStore, secretKeyFor } from '../infra/settings/settings-store';
import type { Tool, ToolEnv } from '../contract/tool';
import { ToolRegistry } from './tools/registry';

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
  /** The capabilities to plug in, in the order their hooks run (hosts pass main/agent/capabilities.ts's list). */
  features: readonly FeatureFactory[];
  /** Extra tools for every session (tests); one with a feature tool's name stands in for it. */
  tools?: (env: ToolEnv) => Tool[];
  pickWorkspace?: () => Promise<string | null>;
  /** Open a path in the system file manager / default app (Electron); absent elsewhere. */
  openPath?: (path: string) => Promise<boolean>;
}

const FLUSH_INTERVAL_MS = 2_000;

interface ActiveTurn {
  turnId: string;
  controller: AbortController;
  done: Promise<TurnOutcome>;
}

/** The agent core for one workspace: sessions, settings and turns behind the protocol's commands, plus the features plugged in. */
export class DeftCore {
  readonly handlers: CommandHandlers;
  private readonly store: SessionStore;
  private readonly settings: SettingsStore;
  private readonly loaded = new Map<string, { session: Session; problems: string[]; handle: SessionHandle }>();
  private readonly active = new Map<string, ActiveTurn>();
  /** startTurn calls of features still resolving (their turn is not active yet). */
  private readonly starting = new Map<string, Set<Promise<unknown>>>();
  private readonly injections = new Map<string, string[]>();
  private readonly listeners = new Set<(event: DeftEvent) => void>();
  private readonly features: Feature[];
  private readonly contextControl: ContextControl;
  private readonly now: () => number;

  constructor(private readonly options: CoreOptions) {
    this.now = options.now ?? Date.now;
    this.store = new SessionStore(options.home, options.workspace, this.now);
    this.settings = new SettingsStore(options.home);
    const context: CoreContext = {
      workspace: options.workspace,
      home: options.home,
      host: options.host,
      now: this.now,
      emitApp: (event) => this.emit(event),
      session: async (id) => (await this.session(id)).handle,
      ...(options.openPath ? { openPath: options.openPath } : {}),
    };
    this.features = options.features.map((create) => create(context));
    this.contextControl = new ContextControl({ features: this.features, retry: options.retry ?? defaultRetryPolicy });
    const base: Partial<CommandHandlers> = {
      getWorkspace: async () => ({ path: options.workspace, name: basename(options.workspace) || options.workspace, home: options.home, host: options.host }),
      pickWorkspace: async () => {
        if (!options.pickWorkspace) throw new CommandError('unsupported', 'Opening another folder is only available in the desktop app. Start another web host with --workspace.');
        return { path: await options.pickWorkspace() };
      },
      listSessions: async () => ({ sessions: await this.listSessions() }),
      createSession: async () => {
        const session = await this.store.create();
        await this.track(session, []);
        return { session: session.summary() };
      },
      openSession: async ({ sessionId, afterSeq }) => {
        const { session, problems } = await this.session(sessionId);
        return { session: session.summary(), ...session.eventsAfter(afterSeq), problems };
      },
      deleteSession: async ({ sessionId }) => {
        await this.cancel(sessionId);
        await this.active.get(sessionId)?.done;
        await Promise.allSettled(this.features.map(async (f) => f.onSessionDeleted?.(sessionId)));
        this.loaded.delete(sessionId);
        await this.store.delete(this.checkedId(sessionId));
        this.emit({ type: 'session.deleted', sessionId });
        return { ok: true as const };
      },
      sendPrompt: async ({ sessionId, text, attachments }) => {
        if (!text.trim() && !attachments?.length) throw new CommandError('invalid_request', 'The prompt is empty.');
        const { session } = await this.session(sessionId);
        if (this.active.has(sessionId)) throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it first.');
        const config = await this.providerConfig();
        if (!config) throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
        return { turnId: this.beginTurn(session, config, { text, origin: 'user', attachments: attachments ?? [] }) };
      },
      cancelTurn: async ({ sessionId }) => ({ cancelled: await this.cancel(sessionId) }),
      compactSession: async ({ sessionId, instructions }) => {
        const { session, handle } = await this.session(sessionId);
        if (this.active.has(sessionId)) throw new CommandError('busy', 'A turn is running in this session. Wait for it to end or stop it, then compact.');
        if (!session.context.length) throw new CommandError('invalid_request', 'There is nothing to compact yet: the conversation is empty.');
        const config = await this.providerConfig();
        if (!config) throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
        return { compactionId: this.beginCompaction(session, handle, config, instructions) };
      },
      undoTurns: async ({ sessionId, count }) => {
        const { session, handle } = await this.session(sessionId);
        if (this.active.has(sessionId)) throw new CommandError('busy', 'Undo is not possible while a turn runs. Stop it first (Esc), then undo.');
        return { turnIds: await this.contextControl.undo(session, handle, count) };
      },
      getSettings: async () => this.publicSettings(),
      setSettings: async ({ provider }) => {
        const stored = { kind: provider.kind, baseUrl: provider.baseUrl.replace(/\/+$/, ''), model: provider.model } as Record<string, unknown>;
        if (provider.imageInput !== undefined) stored.imageInput = provider.imageInput;
        if (provider.contextWindow !== undefined) stored.contextWindow = provider.contextWindow;
        await this.settings.update('provider', stored);
        if (provider.apiKey !== undefined) await options.secrets.set(secretKeyFor({ kind: provider.kind, baseUrl: stored.baseUrl as string }), provider.apiKey.trim());
        const settings = await this.publicSettings();
        this.emit({ type: 'settings.updated', settings });
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
    const merged: Partial<CommandHandlers> = { ...base };
    for (const feature of this.features) Object.assign(merged, feature.commands);
    this.handlers = merged as CommandHandlers;
  }

  onEvent(listener: (event: DeftEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the session's running turn (if any) ends. */
  async turnDone(sessionId: string): Promise<TurnOutcome | null> {
    return (await this.active.get(sessionId)?.done) ?? null;
  }

  /**
   * Resolves when the session has nothing left to do: no turn running or starting, and no feature work
   * (such as a background task) that would start another turn when it ends. The headless host waits on
   * this so the agent can react to its background work, as the reference's print mode does.
   */
  async settled(sessionId: string, signal?: AbortSignal): Promise<void> {
    const aborted = signal ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : null;
    while (!signal?.aborted) {
      const active = this.active.get(sessionId);
      const starting = [...(this.starting.get(sessionId) ?? [])];
      const handle = this.loaded.get(sessionId)?.handle;
      const work = active ? [active.done] : starting.length ? starting : handle ? this.features.flatMap((f) => f.pendingWork?.(handle) ?? []) : [];
      if (!work.length) return;
      await Promise.race([...work.map((w) => w.catch(() => undefined)), ...(aborted ? [aborted] : [])]);
    }
  }

  /** The most recently updated session of this workspace. */
  async latestSessionId(): Promise<string | null> {
    return (await this.store.list())[0]?.id ?? null;
  }

  /** Stop every running turn, close features and write everything to disk. */
  async close(): Promise<void> {
    for (const id of this.active.keys()) await this.cancel(id);
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await Promise.allSettled(this.features.map(async (f) => f.close?.()));
    await Promise.allSettled([...this.loaded.values()].map(({ session }) => session.flush()));
  }

  private emit(event: DeftEvent | AppEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not stop the core or other listeners.
      }
    }
  }

  private checkedId(sessionId: string): string {
    if (!isValidSessionId(sessionId)) throw new CommandError('invalid_request', `"${sessionId}" is not a valid session id.`);
    return sessionId;
  }

  private async track(session: Session, problems: string[]): Promise<{ session: Session; problems: string[]; handle: SessionHandle }> {
    const handle = this.handleFor(session);
    const entry = { session, problems, handle };
    this.loaded.set(session.id, entry);
    session.subscribe((event: SessionEvent) => this.emit(event));
    for (const feature of this.features) await feature.onSessionLoaded?.(handle);
    return entry;
  }

  private handleFor(session: Session): SessionHandle {
    return {
      id: session.id,
      dir: session.dir,
      get running() {
        return session.running;
      },
      emit: (event) => void session.emit(event),
      state: (slot) => ({ get: () => readSlot(slot, session.state.get(slot.key)), set: (value) => session.setState(slot.key, value) }),
      startTurn: (prompt) => {
        const started = (async () => {
          if (this.active.has(session.id)) return null;
          const config = await this.providerConfig();
          return config && !this.active.has(session.id) ? this.beginTurn(session, config, prompt) : null;
        })();
        const pending = this.starting.get(session.id) ?? new Set<Promise<unknown>>();
        this.starting.set(session.id, pending);
        pending.add(started);
        void started.catch(() => null).finally(() => pending.delete(started));
        return started;
      },
      inject: (text) => {
        const queue = this.injections.get(session.id) ?? [];
        queue.push(text);
        this.injections.set(session.id, queue);
      },
      usage: () => ({ ...session.usageTotal }),
    };
  }

  private async session(sessionId: string): Promise<{ session: Session; problems: string[]; handle: SessionHandle }> {
    const cached = this.loaded.get(this.checkedId(sessionId));
    if (cached) return cached;
    const loaded = await this.store.load(sessionId);
    if (!loaded) throw new CommandError('not_found', `Session ${sessionId} does not exist in this workspace.`);
    return this.loaded.get(sessionId) ?? this.track(loaded.session, loaded.problems);
  }

  private async listSessions() {
    const metas = await this.store.list();
    return metas.map((meta) => {
      const summary = this.loaded.get(meta.id)?.session.summary() ?? { ...meta, running: false };
      const waiting = this.features.flatMap((f) => f.waitingFor?.(meta.id) ?? []);
      return waiting.length ? { ...summary, waiting } : summary;
    });
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

  /** Injected messages waiting for this session's next step boundary, as user messages. */
  private drainInjections(sessionId: string): ModelMessage[] {
    const queue = this.injections.get(sessionId);
    if (!queue?.length) return [];
    this.injections.delete(sessionId);
    return queue.map((text) => ({ role: 'user', content: text }));
  }

  private beginTurn(session: Session, config: ProviderConfig, prompt: TurnPrompt): string {
    const turnId = `turn-${randomUUID().slice(0, 8)}`;
    const controller = new AbortController();
    const started = this.now();
    const attachments = prompt.attachments ?? [];
    session.running = true;
    session.noteTurnStarted(prompt.text);
    session.emit({ type: 'turn.started', turnId, text: prompt.text, attachments, origin: prompt.origin });
    session.emit({ type: 'session.updated', session: session.summary() });
    session.appendContext({ role: 'user', content: userContent(prompt.modelText ?? prompt.text, attachments), turnId });
    // The prompt reaches disk at once, and a long stream every few seconds, so a crash loses little.
    void session.flush().catch(() => {});
    const periodicFlush = setInterval(() => void session.flush().catch(() => {}), FLUSH_INTERVAL_MS);

    const handle = this.loaded.get(session.id)?.handle ?? this.handleFor(session);
    const done = this.executeTurn(session, handle, config, turnId, controller.signal).then(async (outcome) => {
      clearInterval(periodicFlush);
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
      for (const feature of this.features) {
        try {
          await feature.onTurnEnded?.(handle, outcome);
        } catch {
          // A feature's reaction must not break the turn's end.
        }
      }
      return outcome;
    });
    this.active.set(session.id, { turnId, controller, done });
    return turnId;
  }

  private async authorize(handle: SessionHandle, call: ResolvedCall): Promise<Authorization> {
    for (const feature of this.features) {
      const decision = await feature.authorize?.(handle, call);
      if (decision) return decision;
    }
    return { allowed: true };
  }

  /** What every model call in a session needs: the provider, the tools (and their environment), the system prompt, the window. */
  private async stepSetup(session: Session, handle: SessionHandle, config: ProviderConfig): Promise<StepSetup & { env: ToolEnv; registry: ToolRegistry }> {
    const provider = createProvider(config, this.options.fetch);
    const env: ToolEnv = {
      workspace: this.options.workspace,
      home: this.options.home,
      sessionId: session.id,
      sessionDir: session.dir,
      capabilities: provider.capabilities,
      extraRoots: () => this.features.flatMap((f) => f.readableRoots?.() ?? []),
    };
    const extra = this.options.tools?.(env) ?? [];
    const replaced = new Set(extra.map((t) => t.name));
    const tools = [...extra, ...this.features.flatMap((f) => f.tools?.(handle, env) ?? []).filter((t) => !replaced.has(t.name))];
    const registry = new ToolRegistry(tools);
    const [facts, agentsMd] = await Promise.all([workspaceFacts(this.options.workspace, new Date(this.now())), readAgentsMd(this.options.workspace)]);
    const toolList = registry.schemas();
    return {
      provider,
      env,
      registry,
      tools: toolList,
      contextWindow: config.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      system: async () => {
        const extra = await Promise.all(this.features.map(async (f) => f.systemPrompt?.(handle)));
        return buildSystemPrompt({ facts, agentsMd, tools: toolList, extra: extra.filter((s): s is string => Boolean(s)) });
      },
    };
  }

  /** A compaction the user asked for: runs like a turn (one at a time, stopped by cancelTurn) without being one. */
  private beginCompaction(session: Session, handle: SessionHandle, config: ProviderConfig, instructions: string | undefined): string {
    const compactionId = newCompactionId();
    const controller = new AbortController();
    session.running = true;
    session.emit({ type: 'session.updated', session: session.summary() });
    const done = (async (): Promise<TurnOutcome> => {
      try {
        const setup = await this.stepSetup(session, handle, config);
        const { outcome, error } = await this.contextControl.compact({
          session,
          handle,
          setup,
          trigger: 'manual',
          signal: controller.signal,
          compactionId,
          ...(instructions ? { instructions } : {}),
        });
        if (outcome === 'compacted') return { stopReason: 'end_turn' };
        return outcome === 'cancelled' ? { stopReason: 'cancelled' } : { stopReason: 'error', ...(error ? { error } : {}) };
      } catch (error) {
        const info = { code: 'internal' as const, message: `Compaction failed: ${(error as Error)?.message ?? String(error)}` };
        session.emit({ type: 'compaction.ended', compactionId, trigger: 'manual', outcome: 'failed', tokensBefore: 0, error: info });
        return { stopReason: 'error', error: info };
      } finally {
        session.running = false;
        this.active.delete(session.id);
        session.touch();
        session.emit({ type: 'session.updated', session: session.summary() });
        await session.flush().catch(() => {});
      }
    })();
    this.active.set(session.id, { turnId: compactionId, controller, done });
    return compactionId;
  }

  private async executeTurn(session: Session, handle: SessionHandle, config: ProviderConfig, turnId: string, signal: AbortSignal): Promise<TurnOutcome> {
    try {
      const setup = await this.stepSetup(session, handle, config);
      const { provider, registry, env } = setup;
      return await runTurn({
        turnId,
        provider,
        registry,
        env,
        system: setup.system,
        history: () => session.context,
        append: (message) => session.appendContext(message),
        beforeStep: this.contextControl.beforeStep(session, handle, setup, turnId, signal, () => this.drainInjections(session.id)),
        usedCallIds: () => session.callIds,
        emit: (event) => session.emit(event),
        checkpoint: () => session.flush(),
        signal,
        retry: this.options.retry ?? defaultRetryPolicy,
        usageTotal: session.usageTotal,
        authorize: (call) => this.authorize(handle, call),
        saveFullOutput: async (toolName, callId, output) => {
          const dir = join(session.dir, 'tool-results');
          await mkdir(dir, { recursive: true, mode: 0o700 });
          // Both names can come from the model (an unknown tool's error echoes its name): keep them one short, plain file name.
          const plain = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80);
          const path = join(dir, `${plain(toolName)}-${plain(callId)}.txt`);
          await writeFile(path, output, { mode: 0o600 });
          return path;
        },
        ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
        ...(this.options.abortGraceMs !== undefined ? { abortGraceMs: this.options.abortGraceMs } : {}),
      });
    } catch (error) {
      if (error instanceof ProviderError) return { stopReason: 'error', error: { code: error.code, message: error.message } };
      if (signal.aborted) return { stopReason: 'cancelled' };
      return { stopReason: 'error', error: { code: 'internal', message: `Deft hit an internal error: ${(error as Error)?.message ?? String(error)}` } };
    }
  }
}

function userContent(text: string, attachments: readonly { path: string; name: string }[]): string | ContentPart[] {
  if (!attachments.length) return text;
  const list = attachments.map((a) => `- ${a.name}: ${a.path}`).join('\n');
  return `${text}\n\nAttached files (open images with ReadMediaFile):\n${list}`;
}
