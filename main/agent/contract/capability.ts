import type { AppEvent, Attachment, ErrorInfo, Mention, ReleasedWorktree, RewindResult, SessionEventInput, StopReason, TurnOrigin, Usage } from '#protocol';
import type { Authorization, ResolvedCall } from './calls';
import type { CommandHandlers } from './commands';
import type { Environment, WorkspacePlace } from './environment';
import type { Fact } from './facts';
import type { SessionHooks } from './hooks';
import type { HostCapabilities } from './host';
import type { NetworkVerdict, SandboxStatus, SessionSandbox, WorkspaceSandbox } from './sandbox';
import type { SlotAccess, StateSlot } from './state';
import type { ChangeReviewer } from './review';
import type { CodeChecks } from './code-checks';
import type { SessionSubagents, SubagentLabel } from './subagents';
import type { SessionTasks, TaskKindAdapter, TaskRecord } from './tasks';
import type { Tool, ToolEnv } from './tool';

/** A prompt that starts a turn: `text` is shown in the transcript, `modelText` (default `text`) is what the model reads. */
export interface TurnPrompt {
  text: string;
  modelText?: string;
  origin: TurnOrigin;
  attachments?: Attachment[];
  /** Files the user pointed at with `@`, already checked (see runtime/mentions.ts). */
  mentions?: Mention[];
}

/** A turn that has just started (its prompt is recorded; no model request or tool call has happened yet). */
export interface TurnStart {
  turnId: string;
  prompt: TurnPrompt;
}

/** A step whose tool calls have all finished. */
export interface StepEnd {
  turnId: string;
  step: number;
  /**
   * The calls that ran (refused, skipped and invalid calls are not listed). `writes`: the only files the
   * call could change, as it declared them (Write, Edit: one file each); absent when it may change anything.
   * `files`: the single files it declared it reads or writes (real paths; Read, Write, Edit).
   */
  calls: ReadonlyArray<{ callId: string; name: string; readOnly: boolean; isError: boolean; writes?: readonly string[]; files?: readonly string[] }>;
}

/** A step's calls that passed validation and approval, about to run (`writes` as in StepEnd). */
export interface ToolsStart {
  turnId: string;
  step: number;
  calls: ReadonlyArray<{ callId: string; name: string; readOnly: boolean; writes?: readonly string[] }>;
}

/** How a turn ended. */
export interface TurnOutcome {
  stopReason: StopReason;
  error?: ErrorInfo;
}

/** What a capability may do with one session. */
export interface SessionHandle {
  readonly id: string;
  readonly dir: string;
  readonly running: boolean;
  emit(event: SessionEventInput): void;
  /** A piece of state the capability declared, persisted with the session (latest value wins on replay). */
  state<T>(slot: StateSlot<T>): SlotAccess<T>;
  /** Start a turn unless one is running; resolves to its id, or null when the session is busy or no model is configured. */
  startTurn(prompt: TurnPrompt): Promise<string | null>;
  /** A message for the model, delivered at the next step boundary (or at the start of the next turn). */
  inject(text: string): void;
  /** Tokens used by the session so far (a copy). */
  usage(): Usage;
  /** The session's background tasks, of every kind. */
  readonly tasks: SessionTasks;
  /** The OS sandbox every command of this session runs in (plan a spawn here; see contract/sandbox.ts). */
  readonly sandbox: SessionSandbox;
  /** The user's hook commands: fire an event (SubagentStop, Notification) and read what they decided (contract/hooks.ts). */
  readonly hooks: SessionHooks;
  /** Its sub-agents: sessions of their own under this one's folder, under the same rules, approvals and sandbox. */
  readonly subagents: SessionSubagents;
  /** Set when this session is itself a sub-agent (it cannot delegate further). */
  readonly agent?: SubagentLabel;
  /** A sub-agent's parent session: the one whose window shows its work (its command cards among it). */
  readonly parentId?: string;
  /** The turns the model still reads (since the last compaction, not undone), oldest first. */
  contextTurns(): string[];
  /** Write what the session has recorded so far to disk (a change made outside a turn, e.g. by a command). */
  flush(): Promise<void>;
  /**
   * Take `turnId` and every turn after it out of what the model reads, as /undo does (capabilities restore
   * their state from before it). Resolves to the turns removed, oldest first; throws a CommandError saying
   * why when it cannot be done (a turn is running, the turn was compacted or is already undone).
   */
  undoFrom(turnId: string): Promise<string[]>;
  /**
   * Give the model back the turns the last undo removed, provided nothing was added to the conversation
   * since (capabilities get their state from just before that undo). Throws a CommandError otherwise.
   */
  redoUndo(turnIds: readonly string[]): Promise<void>;
}

/** A sandboxed process of a session wants to reach a host the settings do not allow. */
export interface ConnectionRequest {
  host: string;
  port: number;
  /** What runs ("npm install", a hook, an MCP server). */
  label: string;
  callId?: string;
  turnId?: string;
  /** The other machine it runs on, whose network it would use (a remote workspace's sandbox); absent: this one. */
  machine?: string;
}

/** Where API keys are kept: the host's store (the system keychain in Electron, else a 0600 file). */
export interface SecretAccess {
  readonly kind: 'safe-storage' | 'file';
  get(key: string): Promise<string | undefined>;
  /** `undefined` or '' removes the key. */
  set(key: string, value: string | undefined): Promise<void>;
}

/** What a capability sees of the core it belongs to. */
export interface CoreContext {
  /** The machine the workspace is on (contract/environment.ts): what runs for the workspace goes through it. */
  readonly environment: Environment;
  readonly workspace: string;
  /**
   * The workspace with the key it is known by on this machine (contract/environment.ts): trust and the workspace's
   * own settings files go through it — read on `place.environment`, trusted under `place.id` — never by the bare path.
   */
  readonly place: WorkspacePlace;
  readonly home: string;
  /** What the host can do: ask the user, show a window, report a warning (contract/host.ts). */
  readonly host: HostCapabilities;
  now(): number;
  emitApp(event: AppEvent): void;
  /** The key store API keys live in (for capabilities with keys of their own, e.g. a search provider). */
  readonly secrets: SecretAccess;
  /** A session, loading it if needed; throws when it does not exist. */
  session(id: string): Promise<SessionHandle>;
  /** Show a folder or file in the system file manager, never opening it (desktop only); resolves to whether it was shown. */
  openPath?(path: string): Promise<boolean>;
  /** Whether commands run in the OS sandbox here (and why not). */
  sandboxStatus(): Promise<SandboxStatus>;
  /** The OS sandbox for what runs for the workspace rather than one session (MCP servers). */
  readonly workspaceSandbox: WorkspaceSandbox;
  /**
   * For a workspace on another machine: the OS sandbox there (bubblewrap on that machine, when it has one), for what
   * runs there for the workspace (its language servers and its own stdio MCP servers). `workspaceSandbox` is this machine's.
   */
  readonly remoteWorkspaceSandbox?: WorkspaceSandbox;
  /** Open a file with the system's default application (desktop only); callers check that it is a plain text file first. */
  openFile?(path: string): Promise<boolean>;
  /**
   * Open a folder as a workspace: in a window of its own (desktop), or in this window beside this core (the web host:
   * 'here'); folder trust applies there as to any folder.
   */
  openFolder?(path: string): Promise<void | 'here'>;
  /**
   * One short request to the configured model, outside any session (no tools, nothing saved): its reply's text. For
   * small drafting jobs (a merge's commit message); throws when no model is configured or the request fails.
   */
  askModel?(request: { system: string; prompt: string; maxOutputTokens: number; signal: AbortSignal }): Promise<string>;
}

/**
 * A capability plugged into the core: tools, system-prompt sections, permission decisions, protocol
 * commands and lifecycle hooks. Each capability lives in its own folder under capabilities/; hosts
 * choose which ones a core gets.
 */
export interface Capability {
  readonly name: string;
  /** Tools this capability offers in a session (called per turn, so the set can change). */
  tools?(session: SessionHandle, env: ToolEnv): Tool[];
  /**
   * A section of the system prompt. The system prompt is rendered once and kept with the session (a new
   * one only after a compaction or when the tool set changes), so the provider can cache it: only text
   * that does not change belongs here. What changes is a fact (`facts`).
   */
  systemPrompt?(session: SessionHandle): string | undefined | Promise<string | undefined>;
  /**
   * The session's changing facts, read before every model step: each one that differs from what the
   * conversation last told the model is sent in a reminder message (contract/facts.ts).
   */
  facts?(session: SessionHandle): Fact[] | Promise<Fact[]>;
  /** Decide on a call; `undefined` leaves it to the next capability. The first decision wins; no decision allows. */
  authorize?(session: SessionHandle, call: ResolvedCall): Promise<Authorization | undefined>;
  /**
   * Decide on a sandboxed process's connection to a host the settings do not allow (ask the user, or
   * refuse); `undefined` leaves it to the next capability. No decision refuses. `signal` aborts when the
   * process ends.
   */
  authorizeConnection?(session: SessionHandle, request: ConnectionRequest, signal: AbortSignal): Promise<NetworkVerdict | undefined>;
  /** Folders outside the workspace the file tools may use as if inside it (e.g. skill folders). */
  readableRoots?(): readonly string[];
  /** The rule that hides a path from reading (deny rules on Read), for search tools' roots and results. */
  readDenials?(session: SessionHandle): Promise<(path: string) => string | null>;
  /** Protocol commands this capability implements. */
  commands?: Partial<CommandHandlers>;
  onSessionLoaded?(session: SessionHandle): void | Promise<void>;
  /** Requests of this session waiting for the user's answer (listed with the sessions). */
  waitingFor?(sessionId: string): Array<{ id: string; turnId: string }>;
  /**
   * A turn started. The model's first request does not wait for the returned promise, but no tool call
   * of the turn runs before it settles (e.g. a snapshot of the workspace before anything can change it).
   */
  onTurnStart?(session: SessionHandle, turn: TurnStart): void | Promise<void>;
  /**
   * A step's tool calls were approved and are about to run; they wait for the returned promise (e.g. a snapshot
   * of the workspace, so what changed while the model wrote or the user was asked is told apart from what they do).
   */
  onToolsStart?(session: SessionHandle, step: ToolsStart): void | Promise<void>;
  /**
   * The model began a tool call (its arguments may still be streaming), once per tool name in a turn (`tool`: its
   * name as the provider streamed it): work that tool calls need and a text-only turn does not can start now (the
   * turn's snapshot of the workspace); the calls wait for the returned promise. Not every provider says so early:
   * onToolsStart must not rely on it.
   */
  onToolCallComing?(session: SessionHandle, turn: { turnId: string; tool: string }): void | Promise<void>;
  /** A step's tool calls finished. The next step's tool calls (and the turn's end) wait for the returned promise. */
  onStepEnd?(session: SessionHandle, step: StepEnd): void | Promise<void>;
  onTurnEnded?(session: SessionHandle, outcome: TurnOutcome): void | Promise<void>;
  /** A background task of this session ended (any kind, any outcome); it may have changed the workspace. */
  onTaskEnded?(session: SessionHandle, task: TaskRecord): void | Promise<void>;
  /**
   * Review of file changes before they are written (review mode): the tools' `ToolEnv.reviewer` comes
   * from the first capability that returns one for the session.
   */
  changeReviewer?(session: SessionHandle): ChangeReviewer | undefined;
  /** Checks files the tools read and write with language servers (ToolEnv.codeChecks): the first capability that returns one serves. */
  codeChecks?(session: SessionHandle): CodeChecks | undefined;
  /** Runs the user's hook commands for this session (SessionHandle.hooks): the first capability that returns one serves. */
  hookRunner?(session: SessionHandle): SessionHooks | undefined;
  /** The kinds of background task this capability runs (SessionHandle.tasks). */
  taskKinds?: readonly TaskKindAdapter[];
  /**
   * The conversation is being compacted: messages the model must still read afterwards (e.g. the skills
   * loaded). They are added after the handoff note, verbatim. Facts need nothing here: every current fact
   * is re-sent after a compaction.
   */
  onCompaction?(session: SessionHandle): string[] | Promise<string[]>;
  /**
   * Turns were undone (or an undo was taken back): put this capability's state back as it was at that point.
   * `before(slot)` is the slot's value then (its fallback when it was unset); set it and tell the UI as usual.
   */
  onUndo?(session: SessionHandle, before: <T>(slot: StateSlot<T>) => T): void | Promise<void>;
  /**
   * A state slot of the session was set, by any capability (`previous` is its value before). For state one
   * capability keeps and another acts on, declared in contract/ (e.g. contract/mode-lease.ts). Called
   * synchronously inside `set`; what it starts must not throw.
   */
  onStateChanged?(session: SessionHandle, key: string, previous: unknown): void;
  /**
   * Whether the session may be let go of now (no window shows it and the core sees nothing running). A capability
   * with live work for it (a scheduled prompt, a foreground command, a sub-agent, a turn it tracks) says false.
   */
  canUnload?(sessionId: string): boolean;
  /**
   * The session is being let go of (idle, not shown); it is loaded again from its log when next used. Save into its
   * state slots what must outlive this (the log is flushed after every capability's hook) and forget what you keep for it.
   */
  onSessionUnloaded?(session: SessionHandle): void | Promise<void>;
  /**
   * `fork` was just made from session `from.sessionId`, holding its conversation up to the end of turn `from.turnId`
   * (null: all of it), with that session's state then. Reset what refers to the original (e.g. its last rewind); with
   * `files` 'restore', put the workspace back as it was at that point and resolve to what was done (the first
   * capability that resolves to a result serves; none: files cannot be restored here). A throw fails the fork.
   */
  onSessionForked?(fork: SessionHandle, from: { sessionId: string; turnId: string | null }, files: 'keep' | 'restore'): Promise<RewindResult | undefined>;
  /**
   * The session is about to be deleted (its files go next): stop what runs for it. It may resolve to the worktrees of
   * the session's isolated sub-agents it removed or kept (told to the user).
   */
  onSessionDeleted?(sessionId: string): void | Promise<void | { agentWorktrees?: ReleasedWorktree[] }>;
  close?(): Promise<void>;
}

export type CapabilityFactory = (core: CoreContext) => Capability;
