import { askModel } from './ask-model';
import type { AppEvent, DeftEvent, NotificationInput } from '#protocol';
import type { CommandHandlers } from '../contract/commands';
import { type RemoteBrowser, noRemoteBrowser } from '../contract/remote-browser';
import type { Environment, WorkspacePlace } from '../contract/environment';
import type { CoreContext, CapabilityFactory, TurnOutcome } from '../contract/capability';
import { localEnvironment } from '../infra/environment/local/local-environment';
import { workspacePlace } from '../infra/environment/workspace-place';
import type { HostCapabilities } from '../contract/host';
import type { Tool, ToolEnv } from '../contract/tool';
import { type RetryPolicy, defaultRetryPolicy } from '../infra/providers/retry';
import type { SandboxSupport } from '../infra/sandbox/availability';
import { type ConnectionAuthorizer, Sandbox } from '../infra/sandbox/sandbox';
import { inboxDir } from '../infra/sessions/inbox';
import { RemoteSandbox, withRemote } from '../infra/sandbox/remote';
import { SessionStore } from '../infra/sessions/store';
import { worktreeAt } from '../infra/worktrees/records';
import { remoteWorktreeAt } from '../infra/worktrees/there';
import { maxRunningTasks } from '../infra/tasks/limits';
import type { ProviderOverrides } from '../infra/settings/provider-config';
import type { SecretStore } from '../infra/settings/secrets';
import { CapabilitySet } from './capability-set';
import { noteWaiting } from './session/waiting-mark';
import { preferencesCommands } from './commands/preferences-commands';
import { sandboxCommands } from './commands/sandbox-commands';
import { sessionCommands } from './commands/session-commands';
import { sessionLibrary } from './commands/session-library';
import { ProviderSettings } from './commands/settings-commands';
import { ContextKeeper } from './compaction/context-keeper';
import { coreFacts } from './prompt/core-facts';
import { type FactSource, factSource } from './prompt/facts';
import { followConnection } from './remote-connection';
import { InboxDelivery } from './session/inbox-delivery';
import { SessionPool } from './session/pool';
import { TurnRunner } from './turn/runner';

export interface CoreOptions {
  home: string;
  /** Absolute, real path of the workspace folder (on `environment`). */
  workspace: string;
  /** The machine the workspace is on (default: this one). Sessions, settings and secrets stay on this machine. */
  environment?: Environment;
  /**
   * The key the workspace's sessions are kept under on this machine (default: `workspace`). A remote folder's is
   * its `ssh://user@host:port/path`, so it never shares sessions with a local folder of the same path, and each
   * session records where it ran.
   */
  workspaceId?: string;
  /** What the host can do (contract/host.ts): set by each host. */
  host: HostCapabilities;
  secrets: SecretStore;
  /** The capabilities to plug in, in the order their hooks run (hosts pass main/agent/capabilities.ts's list). */
  capabilities: readonly CapabilityFactory[];
  /** Provider values that win over saved settings (CLI flags, DEFT_* variables). */
  providerOverrides?: ProviderOverrides;
  fetch?: typeof fetch;
  now?: () => number;
  retry?: RetryPolicy;
  maxSteps?: number;
  abortGraceMs?: number;
  /** Extra tools for every session (tests); one with a capability tool's name stands in for it. */
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
  /** Open a folder as a workspace in a new window (Electron), or beside this core in the same window (the web host: 'here'); absent elsewhere. */
  openFolder?: (path: string) => Promise<void | 'here'>;
  /** *Open remote folder…* (the window's dialog): its commands, from the host; absent: they answer `unsupported`. */
  remoteBrowser?: RemoteBrowser;
  /** Show a desktop notification (Electron); absent elsewhere. */
  notify?: (notification: NotificationInput) => Promise<boolean>;
  /**
   * How long a session that no window shows and that has nothing running stays in memory before it is let go of
   * (default 60 s; `Infinity` keeps every session). It is loaded again from its log when next used.
   */
  unloadAfterMs?: number;
  /**
   * Which sessions take the prompts other cores post to this workspace's mailbox (infra/sessions/inbox.ts): `all`
   * (default: a window's core), `shown` (only the session a viewer shows — a CLI run), `off`.
   */
  inbox?: 'all' | 'shown' | 'off';
}

/**
 * The agent core for one workspace: the protocol's commands over its open sessions (session/), their turns (turn/)
 * and the capabilities it was given (capability-set.ts), which hosts choose.
 */
export class DeftCore {
  readonly handlers: CommandHandlers;
  private readonly store: SessionStore;
  /** This machine's OS sandbox, for what runs here (the user's own hooks and MCP servers, even for a remote folder). */
  private readonly sandbox: Sandbox;
  /** A remote workspace's: bubblewrap on that machine, for its commands (what the window's sandbox status is about). */
  private readonly remoteSandbox: RemoteSandbox | null;
  private readonly capabilities: CapabilitySet;
  private readonly pool: SessionPool;
  private readonly turns: TurnRunner;
  private readonly listeners = new Set<(event: DeftEvent) => void>();
  private readonly inbox: InboxDelivery | null;

  constructor(private readonly options: CoreOptions) {
    const now = options.now ?? Date.now;
    const environment = options.environment ?? localEnvironment();
    // Refuses a remote workspace without its ssh:// key: its trust would fall back to a local folder's path.
    const place = workspacePlace(options.workspace, environment, options.workspaceId);
    const emit = (event: DeftEvent | AppEvent) => this.emit(event);
    const provider = new ProviderSettings({
      home: options.home,
      secrets: options.secrets,
      ...(options.providerOverrides ? { overrides: options.providerOverrides } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      emit,
    });
    this.remoteSandbox =
      environment.kind !== 'local'
        ? new RemoteSandbox({ place, home: options.home, headless: !options.host.canAsk, ...(options.sandbox ? { override: options.sandbox } : {}) })
        : null;
    const commandsSandbox = this.remoteSandbox ?? null;
    this.sandbox = new Sandbox({
      workspace: options.workspace,
      place,
      home: options.home,
      // Nobody to ask: a blocked connection's hint names the setting instead of a question.
      headless: !options.host.canAsk,
      secrets: async () => [(await provider.config())?.apiKey].filter((key): key is string => Boolean(key)),
      ...(options.sandbox ? { override: options.sandbox } : {}),
      ...(options.sandboxSupport ? { support: options.sandboxSupport } : {}),
    });
    // A remote workspace that is a Deft worktree there: its sessions' meta name it as a local one's do (the record there).
    this.store =
      environment.kind === 'local'
        ? new SessionStore(options.home, place.id, now)
        : new SessionStore(
            options.home,
            place.id,
            now,
            onceFound(async () => sessionWorktree(await remoteWorktreeAt(place))),
          );
    const core: CoreContext = {
      environment,
      workspace: options.workspace,
      place,
      home: options.home,
      host: options.host,
      now,
      emitApp: emit,
      secrets: options.secrets,
      session: async (id) => (await this.pool.get(id)).handle,
      ...(options.openPath ? { openPath: options.openPath } : {}),
      sandboxStatus: () => (this.remoteSandbox ?? this.sandbox).status(),
      workspaceSandbox: this.sandbox.forWorkspace(),
      ...(this.remoteSandbox ? { remoteWorkspaceSandbox: this.remoteSandbox.forWorkspace() } : {}),
      ...(options.openFile ? { openFile: options.openFile } : {}),
      ...(options.openFolder ? { openFolder: options.openFolder } : {}),
      askModel: (request) => askModel(() => provider.turnConfig(), request, options.fetch),
    };
    const capabilities = (this.capabilities = new CapabilitySet(options.capabilities, core));
    const facts: FactSource = factSource(capabilities.capabilities, coreFacts(now));
    const context = new ContextKeeper({ capabilities: capabilities.capabilities, facts, retry: options.retry ?? defaultRetryPolicy });
    this.turns = new TurnRunner({ ...options, environment, now, capabilities, provider, context, facts, emit, reload: (id) => this.pool.get(id) });
    const { runs } = this.turns;
    this.pool = new SessionPool({
      store: this.store,
      capabilities,
      context,
      runs,
      emit,
      startTurn: (open, prompt) => this.turns.start(open, prompt),
      sandboxFor: (sessionId, handle) => {
        const authorize: ConnectionAuthorizer = (request, signal) => capabilities.authorizeConnection(handle(), request, signal);
        const here = this.sandbox.forSession(sessionId, authorize);
        return commandsSandbox ? withRemote(here, commandsSandbox.forSession(sessionId, authorize)) : here;
      },
      subagents: (session, handle) => this.turns.subagentDeps(session, handle),
      maxRunningTasks: () => maxRunningTasks(options.home),
      ...(options.unloadAfterMs !== undefined ? { unloadAfterMs: options.unloadAfterMs } : {}),
    });
    const { pool } = this;
    const remote = followConnection(environment, emit);
    const sessions = sessionCommands({
      ...options,
      place,
      environment,
      remote,
      sandboxStatus: () => (this.remoteSandbox ?? this.sandbox).status(),
      store: this.store,
      pool,
      turns: this.turns,
      context,
      capabilities,
      emit,
    });
    const library = sessionLibrary({
      store: this.store,
      home: options.home,
      session: async (id) => (await pool.get(id)).session,
      openSessions: () => pool.all().map((o) => o.session),
    });
    const sandbox = sandboxCommands({ home: options.home, place, environment, sandbox: this.remoteSandbox ?? this.sandbox });
    const preferences = preferencesCommands({ home: options.home, emit, ...(options.notify ? { notify: options.notify } : {}) });
    const scope = options.inbox ?? 'all';
    // A remote folder's too: the mailbox is in Deft's home here, under the folder's ssh:// key (a conflict handed to a
    // worktree there is taken by the core a web page opened on it).
    this.inbox =
      scope === 'off'
        ? null
        : new InboxDelivery({
            dir: inboxDir(options.home, place.id),
            store: this.store,
            session: (id) => pool.get(id),
            busyHere: (id) => runs.busy(id),
            sendQueued: (open) => this.turns.sendQueued(open),
            scope,
            shown: () => pool.shown(),
          });
    if (this.inbox) void this.startInbox(this.inbox, options.home, place);
    this.handlers = pool.holding(
      capabilities.commands({ ...sessions, ...library, ...provider.commands, ...preferences, ...sandbox, ...(options.remoteBrowser ?? noRemoteBrowser) }),
    ) as CommandHandlers;
  }

  /**
   * A window, connection or CLI run (`viewer`) now shows `sessionId` (null: none, or it closed). A session that no
   * viewer shows is let go of once it has been idle for `unloadAfterMs` (see session/sweep.ts).
   */
  show(viewer: string, sessionId: string | null): void {
    this.pool.show(viewer, sessionId);
    // A window's core takes what waits for a session it shows (a CLI run's waits for its turn's end: its own prompt first).
    if (sessionId !== null && this.inboxScope === 'all') void this.inbox?.check();
  }

  /** Prompts other cores posted (the mailbox) are taken now; resolves when they are queued (or started). */
  checkInbox(): Promise<void> {
    return this.inbox?.check() ?? Promise.resolve();
  }

  private get inboxScope(): 'all' | 'shown' | 'off' {
    return this.options.inbox ?? 'all';
  }

  /** A core on a Deft worktree watches its mailbox (the conflict handoff posts there); every core reads it once at start. */
  private async startInbox(inbox: InboxDelivery, home: string, place: WorkspacePlace): Promise<void> {
    const tree = await (place.environment.kind === 'local' ? worktreeAt(home, place.path) : remoteWorktreeAt(place)).catch(() => null);
    await inbox.start(tree !== null);
  }

  /** The sessions some viewer shows now. */
  shownSessionIds(): string[] {
    return [...this.pool.shown()];
  }

  /** The sessions held in memory now. */
  loadedSessionIds(): string[] {
    return this.pool.all().map((open) => open.session.id);
  }

  onEvent(listener: (event: DeftEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves when the session's running turn (if any) ends. */
  async turnDone(sessionId: string): Promise<TurnOutcome | null> {
    return (await this.turns.runs.done(sessionId)) ?? null;
  }

  /**
   * Resolves when the session has nothing left to do: no turn running or starting, and no background
   * task whose end would start another turn. The headless host waits on this so the agent can react to
   * its background work before the run exits.
   */
  async settled(sessionId: string, signal?: AbortSignal): Promise<void> {
    const aborted = signal ? new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })) : null;
    while (!signal?.aborted) {
      const running = this.turns.runs.pending(sessionId);
      const taskEnd = this.pool.loaded(sessionId)?.tasks.whenTaskEnds();
      const work = running.length ? running : taskEnd ? [taskEnd] : [];
      if (!work.length) return;
      await Promise.race([...work.map((w) => w.catch(() => undefined)), ...(aborted ? [aborted] : [])]);
    }
  }

  /** The most recently updated session of this workspace. */
  async latestSessionId(): Promise<string | null> {
    return (await this.store.list())[0]?.id ?? null;
  }

  /** Stop every running turn and background task, close the capabilities and write everything to disk. */
  async close(): Promise<void> {
    await this.inbox?.close();
    await this.pool.close();
    const { runs } = this.turns;
    runs.cancelAll();
    await Promise.allSettled(runs.all());
    const { pool } = this;
    await Promise.allSettled(pool.all().map(({ tasks }) => tasks.close()));
    await Promise.allSettled(pool.all().map(({ handle }) => handle.hooks.fire({ hook_event_name: 'SessionEnd', reason: 'exit' })));
    await this.capabilities.close();
    // A remote sandbox tidies the mount points its last commands made there while the link is still open.
    await this.remoteSandbox?.close().catch(() => {});
    await Promise.allSettled(pool.all().map(({ session }) => session.flush()));
  }

  private emit(event: DeftEvent | AppEvent): void {
    // A turn's end is a boundary where a message posted meanwhile is taken (it waits in the queue, then starts).
    if (event.type === 'turn.ended') void this.inbox?.check();
    noteWaiting(
      event,
      (id) => this.pool.loaded(id)?.session,
      (id) => this.capabilities.waitingFor(id),
    );
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener must not stop the core or other listeners.
      }
    }
  }
}

/** What a session's meta records of the worktree it runs in. */
function sessionWorktree(record: { name: string; branch: string; baseBranch: string | null; repoRoot: string } | null) {
  return record ? { name: record.name, branch: record.branch, baseBranch: record.baseBranch, repoRoot: record.repoRoot } : null;
}

/** A look-up done again until it finds something, then kept (a remote workspace's worktree does not change). */
function onceFound<T>(find: () => Promise<T | null>): () => Promise<T | null> {
  let found: T | null = null;
  return async () => (found ??= await find());
}
