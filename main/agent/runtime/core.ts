import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { type AppEvent, type Attachment, type DeftEvent, type NotificationInput, PAGE_TURNS, type SessionEvent } from '../../../protocol';
import type { Authorization, ResolvedCall } from '../contract/calls';
import type { CommandHandlers } from '../contract/commands';
import { CommandError } from '../contract/errors';
import type { ConnectionRequest, CoreContext, Feature, FeatureFactory, SessionHandle, TurnOutcome, TurnPrompt } from '../contract/feature';
import type { NetworkVerdict } from '../contract/sandbox';
import type { HostCapabilities } from '../contract/host';
import { type SessionHooks, noHooks } from '../contract/hooks';
import type { TaskKind, TaskKindAdapter } from '../contract/tasks';
import type { Tool, ToolEnv } from '../contract/tool';
import { ProviderError } from '../infra/providers/errors';
import { type RetryPolicy, defaultRetryPolicy } from '../infra/providers/retry';
import type { ContentPart, ModelMessage } from '../contract/model';
import { type Session, summaryOf } from '../infra/sessions/session';
import { SessionStore, isValidSessionId } from '../infra/sessions/store';
import { saveToolOutput } from '../infra/sessions/tool-output';
import { TaskBoard } from '../infra/tasks/task-board';
import type { SandboxSupport } from '../infra/sandbox/availability';
import { Sandbox } from '../infra/sandbox/sandbox';
import type { ProviderConfig, ProviderOverrides } from '../infra/settings/provider-config';
import type { SecretStore } from '../infra/settings/secrets';
import { AUTO_COMPACT_RATIO, ContextKeeper, newCompactionId } from './compaction/context-keeper';
import { contextBreakdown } from './compaction/tokens';
import { type FactSource, factReminder, factSource } from './prompt/facts';
import { coreFacts } from './prompt/core-facts';
import { type TurnSession, runTurn } from './loop/turn';
import { mentionNote, resolveMentions } from './turn/mentions';
import { Runs } from './turn/runs';
import { preferencesCommands } from './commands/preferences-commands';
import { sessionLibrary } from './commands/session-library';
import { ProviderSettings } from './commands/settings-commands';
import { stepSetup } from './turn/step-setup';
import { type WorkspaceFacts, workspaceFacts } from './prompt/system-prompt';
import { deferredToolsReminder } from './tools/deferred';
import { promptHooks, sessionStartHooks, stopHooks } from './turn/hook-events';
import { SubagentHost } from './subagents/host';
import { sessionBasics } from './session/basics';

export interface CoreOptions {
  home: string;
  /** Absolute, real path of the workspace folder. */
  workspace: string;
  /** What the host can do (contract/host.ts): set by each host. */
  host: HostCapabilities;
  secrets: SecretStore;
  /** The capabilities to plug in, in the order their hooks run (hosts pass main/agent/capabilities.ts's list). */
  features: readonly FeatureFactory[];
  /** Provider values that win over saved settings (CLI flags, DEFT_* variables). */
  providerOverrides?: ProviderOverrides;
  fetch?: typeof fetch;
  now?: () => number;
  retry?: RetryPolicy;
  maxSteps?: number;
  abortGraceMs?: number;
  /** Extra tools for every session (tests); one with a feature tool's name stands in for it. */
  tools?: (env: ToolEnv) => Tool[];
  pickWorkspace?: () => Promise<string | null>;
  /** Open a path in the system file manager / default app (Electron); absent elsewhere. */
  openPath?: (path: string) => Promise<boolean>;
  /** `deft run --sandbox on|off`: wins over the `sandbox.enabled` setting. */
  sandbox?: 'on' | 'off';
  /** What the OS offers for sandboxing (detected when omitted; tests pass their own). */
  sandboxSupport?: SandboxSupport;
  /** Open a file with the system's default application (Electron); absent elsewhere. */
  openFile?: (path: string) => Promise<boolean>;
  /** Show a desktop notification (Electron); absent elsewhere. */
  notify?: (notification: NotificationInput) => Promise<boolean>;
  /**
   * How long a session that no window shows and that has nothing running stays in memory before it is let go of
   * (default 60 s; `Infinity` keeps every session). It is loaded again from its log when next used.
   */
  unloadAfterMs?: number;
}

const FLUSH_INTERVAL_MS = 2_000;
const UNLOAD_AFTER_MS = 60_000;
/** How long sub-agents' system prompts reuse one reading of the workspace's facts. */
const WORKSPACE_FACTS_TTL_MS = 5_000;

/** A session the core has open: its log, what was wrong with it on load, and the handle features get. */
interface OpenSession {
  session: Session;
  problems: string[];
  handle: SessionHandle;
  /** Its background tasks, of every kind. */
  tasks: TaskBoard;
  /** Messages for the model waiting for the next step boundary. */
  injections: string[];
  /** What features asked to finish before the turn's next tool call runs (Feature.onTurnStart, onStepEnd). */
  gates: Promise<unknown>[];
  /** The SessionStart hooks' context, waiting for the session's first turn (which waits for them). */
  starting: Promise<ModelMessage | null> | null;
  /** Whether `starting` has settled (its hooks no longer run). */
  startSettled: boolean;
  subagents: SubagentHost;
  /** When a command or an event last used it (performance.now(), not the core's clock, which tests may freeze). */
  lastUsed: number;
  /** Let go of: a stale reference that starts a turn reaches the session loaded again instead. */
  unloaded: boolean;
  stopForwarding: () => void;
}

/** The agent core for one workspace: sessions and turns behind the protocol's commands, plus the capabilities it was given. */
export class DeftCore {
  readonly handlers: CommandHandlers;
  private readonly store: SessionStore;
  private readonly provider: ProviderSettings;
  private readonly open = new Map<string, OpenSession>();
  private readonly runs = new Runs();
  private readonly listeners = new Set<(event: DeftEvent) => void>();
  private readonly features: Feature[];
  private readonly taskKinds: ReadonlyMap<TaskKind, TaskKindAdapter>;
  private readonly context: ContextKeeper;
  private readonly facts: FactSource;
  private readonly now: () => number;
  private readonly sandbox: Sandbox;
  /** The session each window (or connection, or the CLI) shows, by viewer id. */
  private readonly viewers = new Map<string, string>();
  /** Commands in progress, by the session they name: such a session is never let go of. */
  private readonly inUse = new Map<string, number>();
  /** Sessions being let go of: loading one again waits for its log to be written. */
  private readonly unloading = new Map<string, Promise<void>>();
  /** What a session let go of keeps for when it is loaded again: what its SessionStart hooks and its tasks said that no turn has read yet. */
  private readonly letGo = new Map<string, { start: ModelMessage | null; injections: string[] }>();
  private sweepTimer: ReturnType<typeof setTimeout> | undefined;
  private closing = false;

  constructor(private readonly options: CoreOptions) {
    this.now = options.now ?? Date.now;
    this.sandbox = new Sandbox({
      workspace: options.workspace,
      home: options.home,
      // Nobody to ask: a blocked connection's hint names the setting instead of a question.
      headless: !options.host.canAsk,
      secrets: async () => [(await this.provider.config())?.apiKey].filter((key): key is string => Boolean(key)),
      ...(options.sandbox ? { override: options.sandbox } : {}),
      ...(options.sandboxSupport ? { support: options.sandboxSupport } : {}),
    });
    this.store = new SessionStore(options.home, options.workspace, this.now);
    this.provider = new ProviderSettings({
      home: options.home,
      secrets: options.secrets,
      ...(options.providerOverrides ? { overrides: options.providerOverrides } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      emit: (event) => this.emit(event),
    });
    const core: CoreContext = {
      workspace: options.workspace,
      home: options.home,
      host: options.host,
      now: this.now,
      emitApp: (event) => this.emit(event),
      secrets: options.secrets,
      session: async (id) => (await this.session(id)).handle,
      ...(options.openPath ? { openPath: options.openPath } : {}),
      sandboxStatus: () => this.sandbox.status(),
      workspaceSandbox: this.sandbox.forWorkspace(),
      ...(options.openFile ? { openFile: options.openFile } : {}),
    };
    this.features = options.features.map((create) => create(core));
    this.taskKinds = new Map(this.features.flatMap((f) => f.taskKinds ?? []).map((kind) => [kind.kind, kind]));
    this.facts = factSource(this.features, coreFacts(this.now));
    this.context = new ContextKeeper({ features: this.features, facts: this.facts, retry: options.retry ?? defaultRetryPolicy });
    const preferences = preferencesCommands({ home: options.home, emit: (event) => this.emit(event), ...(options.notify ? { notify: options.notify } : {}) });
    const library = sessionLibrary({ store: this.store, home: options.home, session: async (id) => (await this.session(id)).session, openSessions: () => [...this.open.values()].map((o) => o.session) });
    const merged: Partial<CommandHandlers> = { ...this.sessionCommands(), ...library, ...this.provider.commands, ...preferences };
    for (const feature of this.features) Object.assign(merged, feature.commands);
    this.handlers = this.holdingSessions(merged) as CommandHandlers;
  }

  /** Every command that names a session keeps it loaded while it runs. */
  private holdingSessions(handlers: Partial<CommandHandlers>): Partial<CommandHandlers> {
    const held: Record<string, (input: unknown) => Promise<unknown>> = {};
    for (const [name, handler] of Object.entries(handlers) as Array<[string, (input: unknown) => Promise<unknown>]>) {
      held[name] = async (input) => {
        const sessionId = (input as { sessionId?: unknown } | undefined)?.sessionId;
        if (typeof sessionId !== 'string') return handler(input);
        this.inUse.set(sessionId, (this.inUse.get(sessionId) ?? 0) + 1);
        try {
          return await handler(input);
        } finally {
          const left = (this.inUse.get(sessionId) ?? 1) - 1;
          if (left > 0) this.inUse.set(sessionId, left);
          else this.inUse.delete(sessionId);
          const open = this.open.get(sessionId);
          if (open) open.lastUsed = performance.now();
        }
      };
    }
    return held;
  }

  /**
   * A window, connection or CLI run (`viewer`) now shows `sessionId` (null: none, or it closed). A session that no
   * viewer shows is let go of once it has been idle for `unloadAfterMs` (see `canUnload`).
   */
  show(viewer: string, sessionId: string | null): void {
    if (sessionId === null) this.viewers.delete(viewer);
    else this.viewers.set(viewer, sessionId);
    this.armSweep();
  }

  /** The sessions some viewer shows now. */
  shownSessionIds(): string[] {
    return [...new Set(this.viewers.values())];
  }

  /** The sessions held in memory now. */
  loadedSessionIds(): string[] {
    return [...this.open.keys()];
  }

  onEvent(listener: (event: DeftEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the session's running turn (if any) ends. */
  async turnDone(sessionId: string): Promise<TurnOutcome | null> {
    return (await this.runs.done(sessionId)) ?? null;
  }

  /**
   * Resolves when the session has nothing left to do: no turn running or starting, and no background
   * task whose end would start another turn. The headless host waits on this so the agent can react to
   * its background work before the run exits.
   */
  async settled(sessionId: string, signal?: AbortSignal): Promise<void> {
    const aborted = signal ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : null;
    while (!signal?.aborted) {
      const running = this.runs.pending(sessionId);
      const taskEnd = this.open.get(sessionId)?.tasks.whenTaskEnds();
      const work = running.length ? running : taskEnd ? [taskEnd] : [];
      if (!work.length) return;
      await Promise.race([...work.map((w) => w.catch(() => undefined)), ...(aborted ? [aborted] : [])]);
    }
  }

  /** The most recently updated session of this workspace. */
  async latestSessionId(): Promise<string | null> {
    return (await this.store.list())[0]?.id ?? null;
  }

  /** Stop every running turn and background task, close features and write everything to disk. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.sweepTimer);
    await Promise.allSettled(this.unloading.values());
    this.runs.cancelAll();
    await Promise.allSettled(this.runs.all());
    await Promise.allSettled([...this.open.values()].map(({ tasks }) => tasks.close()));
    await Promise.allSettled([...this.open.values()].map(({ handle }) => handle.hooks.fire({ hook_event_name: 'SessionEnd', reason: 'exit' })));
    await Promise.allSettled(this.features.map(async (f) => f.close?.()));
    await Promise.allSettled([...this.open.values()].map(({ session }) => session.flush()));
  }

  private sessionCommands(): Partial<CommandHandlers> {
    const { options } = this;
    return {
      getWorkspace: async () => ({ path: options.workspace, name: basename(options.workspace) || options.workspace, home: options.home, host: options.host.kind, sandbox: await this.sandbox.status() }),
      pickWorkspace: async () => {
        if (!options.pickWorkspace) throw new CommandError('unsupported', 'Opening another folder is only available in the desktop app. Start another web host with --workspace.');
        return { path: await options.pickWorkspace() };
      },
      listSessions: async () => ({ sessions: await this.listSessions() }),
      createSession: async () => {
        const session = await this.store.create();
        await this.track(session, [], 'startup');
        return { session: session.summary() };
      },
      openSession: async ({ sessionId, afterSeq }) => {
        const { session, problems } = await this.session(sessionId);
        return { session: session.summary(), ...session.eventsAfter(afterSeq), problems };
      },
      earlierEvents: async ({ sessionId, beforeSeq, turns }) => (await this.session(sessionId)).session.eventsBefore(beforeSeq, turns ?? PAGE_TURNS),
      deleteSession: async ({ sessionId }) => {
        await this.unloading.get(sessionId);
        this.runs.cancel(sessionId);
        await this.runs.done(sessionId);
        await this.open.get(sessionId)?.tasks.close();
        const open = this.open.get(sessionId);
        if (open) await open.handle.hooks.fire({ hook_event_name: 'SessionEnd', reason: 'deleted' });
        await Promise.allSettled(this.features.map(async (f) => f.onSessionDeleted?.(sessionId)));
        this.open.delete(sessionId);
        this.letGo.delete(sessionId);
        await this.store.delete(this.checkedId(sessionId));
        // Every window showing it goes to its empty view on session.deleted: none shows it any more.
        for (const [viewer, shown] of this.viewers) if (shown === sessionId) this.viewers.delete(viewer);
        this.emit({ type: 'session.deleted', sessionId });
        return { ok: true as const };
      },
      sendPrompt: async ({ sessionId, text, attachments, mentions }) => {
        if (!text.trim() && !attachments?.length) throw new CommandError('invalid_request', 'The prompt is empty.');
        const open = await this.session(sessionId);
        if (this.runs.busy(sessionId)) throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it first.');
        const config = await this.requireProvider();
        const checked = mentions?.length ? await resolveMentions(mentions, { workspace: options.workspace, sessionDir: open.session.dir }) : [];
        return { turnId: this.beginTurn(open, config, { text, origin: 'user', attachments: attachments ?? [], ...(checked.length ? { mentions: checked } : {}) }) };
      },
      cancelTurn: async ({ sessionId }) => ({ cancelled: this.runs.cancel(sessionId) }),
      compactSession: async ({ sessionId, instructions }) => {
        const open = await this.session(sessionId);
        if (this.runs.busy(sessionId)) throw new CommandError('busy', 'A turn is running in this session. Wait for it to end or stop it, then compact.');
        if (!open.session.context.length) throw new CommandError('invalid_request', 'There is nothing to compact yet: the conversation is empty.');
        const config = await this.requireProvider();
        return { compactionId: this.beginCompaction(open, config, instructions) };
      },
      undoTurns: async ({ sessionId, count }) => {
        const { session, handle } = await this.session(sessionId);
        if (this.runs.busy(sessionId)) throw new CommandError('busy', 'Undo is not possible while a turn runs. Stop it first (Esc), then undo.');
        return { turnIds: await this.context.undo(session, handle, count) };
      },
    };
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

  private async requireProvider(): Promise<ProviderConfig> {
    const config = await this.provider.turnConfig();
    if (!config) throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
    return config;
  }

  private async track(session: Session, problems: string[], source: 'startup' | 'resume'): Promise<OpenSession> {
    const injections: string[] = [];
    // A turn that a feature or a task asks for runs in this open session (declared just below).
    const startTurn = (prompt: TurnPrompt) => this.startTurnFor(open, prompt);
    const inject = (text: string) => void injections.push(text);
    const tasks = new TaskBoard({
      sessionId: session.id,
      sessionDir: session.dir,
      session: {
        get running() {
          return session.running;
        },
        startTurn,
        inject,
      },
      emitApp: (event) => this.emit(event),
      kinds: this.taskKinds,
      onEnded: (record) => {
        void this.eachFeature((f) => f.onTaskEnded?.(handle, record));
        void handle.hooks.fire({ hook_event_name: 'Notification', notification_type: 'task_finished', message: `Background task ${record.id} (${record.description}) ended: ${record.status}.` });
      },
    });
    // A sub-agent's calls are decided as the parent's own: same mode, rules, session approvals, plan mode.
    const subagents = new SubagentHost({
      parent: {
        session,
        get handle() {
          return handle;
        },
      },
      // A swarm starts many sub-agents at once: they share one reading of the workspace (a git status) for a few seconds.
      setup: { ...this.setupDeps(), workspaceFacts: () => this.sharedWorkspaceFacts() },
      context: this.context,
      providerConfig: () => this.provider.turnConfig(),
      authorize: (call) => this.authorize(handle, call),
      parentFacts: () => this.facts(handle),
      emitApp: (event) => this.emit(event),
      retry: this.options.retry ?? defaultRetryPolicy,
      ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
      ...(this.options.abortGraceMs !== undefined ? { abortGraceMs: this.options.abortGraceMs } : {}),
      now: this.now,
    });
    // Object.assign keeps the basics' live `running` getter.
    const handle: SessionHandle = Object.assign(sessionBasics(session, (key, previous) => this.stateChanged(handle, key, previous)), {
      hooks: noHooks, // replaced below by the feature's runner, found once the handle exists
      startTurn,
      inject,
      tasks,
      sandbox: this.sandbox.forSession(session.id, (request, signal) => this.authorizeConnection(handle, request, signal)),
      subagents,
      undoFrom: async (turnId: string) => {
        if (this.runs.busy(session.id)) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc).');
        return this.context.undoFrom(session, handle, turnId);
      },
      redoUndo: async (turnIds: readonly string[]) => {
        if (this.runs.busy(session.id)) throw new CommandError('busy', 'A turn is running in this session. Stop it first (Esc).');
        await this.context.redo(session, handle, turnIds);
      },
    });
    // The hooks runner is found on first use (a getter given to Object.assign would be called at once, before the handle exists).
    const features = this.features;
    let hooks: SessionHooks | undefined;
    Object.defineProperty(handle, 'hooks', { enumerable: true, get: () => (hooks ??= features.map((f) => f.hookRunner?.(handle)).find((runner) => runner !== undefined) ?? noHooks) });
    const stopForwarding = session.subscribe((event: SessionEvent) => {
      open.lastUsed = performance.now();
      this.emit(event);
    });
    const open: OpenSession = { session, problems, handle, tasks, injections, gates: [], starting: null, startSettled: false, subagents, lastUsed: performance.now(), unloaded: false, stopForwarding };
    this.open.set(session.id, open);
    await tasks.load();
    for (const feature of this.features) await feature.onSessionLoaded?.(handle);
    // Opening a session does not wait for its SessionStart hooks; its first turn does. A session loaded again after
    // it was let go of did not end: its hooks ran already, and what they gave that no turn has read yet is kept.
    const kept = this.letGo.get(session.id);
    this.letGo.delete(session.id);
    if (kept) injections.unshift(...kept.injections);
    open.starting = kept ? Promise.resolve(kept.start) : sessionStartHooks(handle, source);
    void open.starting.then(
      () => (open.startSettled = true),
      () => (open.startSettled = true),
    );
    this.armSweep();
    return open;
  }

  /** Whether a session may be let go of now: no viewer shows it and nothing of it runs, waits or is held by a command. */
  private canUnload(open: OpenSession): boolean {
    const id = open.session.id;
    if ([...this.viewers.values()].includes(id) || this.inUse.has(id) || !this.runs.quiet(id)) return false;
    if (open.tasks.list(true).length || open.gates.length || !open.startSettled || open.subagents.active) return false;
    return this.features.every((feature) => {
      try {
        return !feature.waitingFor?.(id).length && feature.canUnload?.(id) !== false;
      } catch {
        return false;
      }
    });
  }

  /** Look at the open sessions again when the next one that no viewer shows may have been idle long enough. */
  private armSweep(delay?: number): void {
    const after = this.options.unloadAfterMs ?? UNLOAD_AFTER_MS;
    if (this.sweepTimer || this.closing || !Number.isFinite(after)) return;
    this.sweepTimer = setTimeout(() => {
      this.sweepTimer = undefined;
      this.sweep(after);
    }, delay ?? after);
    this.sweepTimer.unref?.();
  }

  private sweep(after: number): void {
    const shown = new Set(this.viewers.values());
    const now = performance.now();
    // A session that was used recently is looked at again when its idle time is up; a busy one after a whole interval.
    let next = Infinity;
    for (const open of [...this.open.values()]) {
      if (shown.has(open.session.id)) continue;
      const idleFor = now - open.lastUsed;
      if (idleFor < after) next = Math.min(next, after - idleFor);
      else if (this.canUnload(open)) void this.unload(open);
      else next = Math.min(next, after);
    }
    if (next < Infinity) this.armSweep(Math.max(1, Math.ceil(next)));
  }

  /**
   * Let go of an idle session: capabilities save what must outlive it and forget the rest, its log is written, and
   * it leaves memory. The next command naming it (or a stale reference starting a turn) loads it again from disk.
   */
  private unload(open: OpenSession): Promise<void> {
    const id = open.session.id;
    this.open.delete(id);
    open.unloaded = true;
    const done = (async () => {
      await this.eachFeature((f) => f.onSessionUnloaded?.(open.handle));
      await open.tasks.close().catch(() => {});
      const start = open.starting ? await open.starting.catch(() => null) : null;
      this.letGo.set(id, { start, injections: open.injections.splice(0) });
      await open.session.flush().catch(() => {});
      open.stopForwarding();
    })();
    this.unloading.set(id, done);
    return done.finally(() => {
      if (this.unloading.get(id) === done) this.unloading.delete(id);
    });
  }

  /** Start a turn unless one is running or no model is configured; resolves to its id or null. */
  private startTurnFor(open: OpenSession, prompt: TurnPrompt): Promise<string | null> {
    const id = open.session.id;
    if (open.unloaded) return this.session(id).then((loaded) => this.startTurnFor(loaded, prompt));
    return this.runs.noteStarting(
      id,
      (async () => {
        if (this.runs.busy(id)) return null;
        const config = await this.provider.turnConfig();
        return config && !this.runs.busy(id) ? this.beginTurn(open, config, prompt) : null;
      })(),
    );
  }

  private async session(sessionId: string): Promise<OpenSession> {
    await this.unloading.get(this.checkedId(sessionId));
    const cached = this.open.get(sessionId);
    if (cached) {
      cached.lastUsed = performance.now();
      return cached;
    }
    const loaded = await this.store.load(sessionId);
    if (!loaded) throw new CommandError('not_found', `Session ${sessionId} does not exist in this workspace.`);
    return this.open.get(sessionId) ?? this.track(loaded.session, loaded.problems, 'resume');
  }

  private async listSessions() {
    const metas = await this.store.list();
    return metas.map((meta) => {
      const summary = this.open.get(meta.id)?.session.summary() ?? summaryOf(meta);
      const waiting = this.features.flatMap((f) => f.waitingFor?.(meta.id) ?? []);
      return waiting.length ? { ...summary, waiting } : summary;
    });
  }

  /** Run a hook of every feature, in order; one that throws does not stop the others. Never rejects. */
  /** Features react in order. One without the hook costs no tick, so the first reaction starts synchronously (checkpoints' onTurnStart must hand over its note before the turn's first step drains the injections). */
  private async eachFeature(hook: (feature: Feature) => void | Promise<void>): Promise<void> {
    for (const feature of this.features) {
      try {
        const pending = hook(feature);
        if (pending) await pending;
      } catch {
        // A feature's reaction must not break the turn or the other features.
      }
    }
  }

  private stateChanged(handle: SessionHandle, key: string, previous: unknown): void {
    for (const feature of this.features) {
      try {
        feature.onStateChanged?.(handle, key, previous);
      } catch {
        // One feature's reaction must not break the change or the other features.
      }
    }
  }

  private async authorize(handle: SessionHandle, call: ResolvedCall): Promise<Authorization> {
    for (const feature of this.features) {
      const decision = await feature.authorize?.(handle, call);
      if (decision) return decision;
    }
    return { allowed: true };
  }

  private async authorizeConnection(handle: SessionHandle, request: ConnectionRequest, signal: AbortSignal): Promise<NetworkVerdict> {
    for (const feature of this.features) {
      const verdict = await feature.authorizeConnection?.(handle, request, signal);
      if (verdict) return verdict;
    }
    return { allowed: false, reason: 'it is not in "sandbox.network.allowedDomains"' };
  }

  private beginTurn(open: OpenSession, provider: ProviderConfig, prompt: TurnPrompt): string {
    const { session, handle } = open;
    const config = withSessionModel(provider, session);
    const turnId = `turn-${randomUUID().slice(0, 8)}`;
    const started = this.now();
    const attachments = prompt.attachments ?? [];
    this.runs.start(
      session,
      turnId,
      async (signal) => {
        session.noteTurnStarted(prompt.text);
        const mentions = prompt.mentions ?? [];
        session.emit({ type: 'turn.started', turnId, text: prompt.text, attachments, origin: prompt.origin, ...(mentions.length ? { mentions } : {}) });
        session.emit({ type: 'session.updated', session: session.summary() });
        const startContext = open.starting ? await open.starting : null;
        open.starting = null;
        if (startContext) session.appendContext(startContext);
        // The user's UserPromptSubmit hooks may refuse the prompt (it never reaches the model) or add context after it.
        const submitted = await promptHooks(handle, prompt, turnId, signal);
        if (submitted.blocked || signal.aborted) {
          await session.flush().catch(() => {});
          const stopReason = signal.aborted ? 'cancelled' : 'end_turn';
          session.emit({ type: 'turn.ended', turnId, stopReason, durationMs: this.now() - started });
          return { stopReason };
        }
        // What changed since the model last heard (a mode the user switched, a skill edited) comes first, so the prompt is what it reads last.
        const reminder = factReminder(await this.facts(handle), session.context);
        if (reminder) session.appendContext(reminder);
        const modelText = (prompt.modelText ?? prompt.text) + mentionNote(mentions, this.options.workspace);
        session.appendContext({ role: 'user', content: userContent(modelText, attachments, config.imageInput), turnId });
        if (submitted.context) session.appendContext({ ...submitted.context, turnId });
        open.gates.push(this.eachFeature((f) => f.onTurnStart?.(handle, { turnId, prompt })));
        // The prompt reaches disk at once, and a long stream every few seconds, so a crash loses little.
        void session.flush().catch(() => {});
        const periodicFlush = setInterval(() => void session.flush().catch(() => {}), FLUSH_INTERVAL_MS);
        const outcome = await this.executeTurn(open, config, turnId, signal);
        await Promise.all(open.gates.splice(0));
        clearInterval(periodicFlush);
        session.emit({ type: 'turn.ended', turnId, stopReason: outcome.stopReason, ...(outcome.error ? { error: outcome.error } : {}), durationMs: this.now() - started });
        return outcome;
      },
      async (outcome) => {
        for (const feature of this.features) {
          try {
            await feature.onTurnEnded?.(handle, outcome);
          } catch {
            // A feature's reaction must not break the turn's end.
          }
        }
        // A task notification the turn ended before reading gets a turn of its own (unless one started meanwhile).
        await open.tasks.onTurnEnded(outcome).catch(() => {});
      },
    );
    return turnId;
  }

  /** A compaction the user asked for: runs like a turn (one at a time, stopped by cancelTurn) without being one. */
  private beginCompaction(open: OpenSession, provider: ProviderConfig, instructions: string | undefined): string {
    const { session, handle } = open;
    const config = withSessionModel(provider, session);
    const compactionId = newCompactionId();
    this.runs.start(session, compactionId, async (signal) => {
      session.emit({ type: 'session.updated', session: session.summary() });
      try {
        const setup = await stepSetup(this.setupDeps(), session, handle, config);
        const { outcome, error } = await this.context.compact({ session, handle, setup, trigger: 'manual', signal, compactionId, ...(instructions ? { instructions } : {}) });
        if (outcome === 'compacted') return { stopReason: 'end_turn' };
        return outcome === 'cancelled' ? { stopReason: 'cancelled' } : { stopReason: 'error', ...(error ? { error } : {}) };
      } catch (error) {
        const info = { code: 'internal' as const, message: `Compaction failed: ${(error as Error)?.message ?? String(error)}` };
        session.emit({ type: 'compaction.ended', compactionId, trigger: 'manual', outcome: 'failed', tokensBefore: 0, error: info });
        return { stopReason: 'error', error: info };
      }
    });
    return compactionId;
  }

  private workspaceFactsCache: { at: number; facts: Promise<WorkspaceFacts> } | null = null;

  private sharedWorkspaceFacts(): Promise<WorkspaceFacts> {
    const now = Date.now();
    if (!this.workspaceFactsCache || now - this.workspaceFactsCache.at > WORKSPACE_FACTS_TTL_MS) this.workspaceFactsCache = { at: now, facts: workspaceFacts(this.options.workspace) };
    return this.workspaceFactsCache.facts;
  }

  private setupDeps() {
    const { workspace, home, fetch, tools } = this.options;
    return { workspace, home, features: this.features, now: this.now, ...(fetch ? { fetch } : {}), ...(tools ? { tools } : {}) };
  }

  private async executeTurn(open: OpenSession, config: ProviderConfig, turnId: string, signal: AbortSignal): Promise<TurnOutcome> {
    const { session, handle } = open;
    try {
      const setup = await stepSetup(this.setupDeps(), session, handle, config);
      const compactIfDue = this.context.autoCompaction(session, handle, setup, turnId, signal);
      // The system prompt of the latest step, for the context meter's breakdown.
      let system = '';
      const buildSystem = async () => (system = await setup.system());
      const turnSession: TurnSession = {
        history: () => session.context,
        append: (message) => session.appendContext(message),
        emit: (event) => void session.emit(event),
        checkpoint: () => session.flush(),
        // Messages injected meanwhile join after a compaction's note, so notifications arrive verbatim; one
        // that a feature just re-attached (a skill loaded at the last step) is not added twice. Then one
        // reminder with every fact that changed since the conversation last said it.
        beforeStep: async () => {
          const compacted = await compactIfDue();
          if (compacted) setup.registry.clearSelection();
          open.tasks.noteStep();
          let injected = drain(open);
          // Deferred tools added or removed since the model last heard (again after a compaction).
          const deferred = deferredToolsReminder(session.context, setup.registry);
          if (deferred) injected = [...injected, deferred];
          if (compacted) {
            const present = new Set(session.context.map((m) => m.content));
            injected = injected.filter((m) => !(typeof m.content === 'string' && present.has(m.content)));
          }
          const reminder = factReminder(await this.facts(handle), [...session.context, ...injected]);
          return reminder ? [...injected, reminder] : injected;
        },
        usedCallIds: () => session.callIds,
        countUsage: (id, usage) => {
          session.countUsage(id, usage, config.model);
          // The provider's count for this step is what the context now holds (its input plus the answer just added).
          const tokens = usage.inputTokens + usage.outputTokens;
          const breakdown = contextBreakdown(system, setup.tools, session.context, tokens);
          session.emit({ type: 'context.measured', turnId: id, tokens, contextWindow: setup.contextWindow, compactAt: AUTO_COMPACT_RATIO, breakdown });
        },
        beforeTools: async () => void (await Promise.all(open.gates.splice(0))),
        afterTools: (step) => void open.gates.push(this.eachFeature((f) => f.onStepEnd?.(handle, step))),
        onFinalAnswer: (continued) => stopHooks(handle, turnId, continued, signal),
      };
      return await runTurn({
        turnId,
        session: turnSession,
        model: {
          provider: setup.provider,
          system: buildSystem,
          registry: setup.registry,
          env: setup.env,
          authorize: (call) => this.authorize(handle, call),
          hooks: handle.hooks,
          saveFullOutput: (toolName, callId, output) => saveToolOutput(session.dir, toolName, callId, output),
        },
        signal,
        retry: this.options.retry ?? defaultRetryPolicy,
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

/** Injected messages waiting for the session's next step boundary, as user messages. */
function drain(open: OpenSession): ModelMessage[] {
  return open.injections.splice(0).map((text) => ({ role: 'user', content: text }));
}

function userContent(text: string, attachments: readonly Attachment[], imageInput: boolean): string | ContentPart[] {
  if (!attachments.length) return text;
  const list = attachments.map((a) => `- ${a.name}: ${a.path}`).join('\n');
  const onlyImages = attachments.every((a) => a.kind === 'image');
  const images = imageInput ? 'open images with ReadMediaFile' : 'this model cannot see images: ask the user what they show if it matters';
  const how = onlyImages ? images : `${images}, other files with Read`;
  return `${text}\n\nAttached files (${how}):\n${list}`;
}

/** The session's own model choice, when the user made one, over the provider's. */
function withSessionModel(config: ProviderConfig, session: Session): ProviderConfig {
  return session.model ? { ...config, model: session.model } : config;
}
