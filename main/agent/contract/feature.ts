import type { AppEvent, Attachment, ErrorInfo, Mention, SessionEventInput, StopReason, TurnOrigin, Usage, WorkspaceInfo } from '../../../protocol';
import type { Authorization, ResolvedCall } from './calls';
import type { CommandHandlers } from './commands';
import type { SlotAccess, StateSlot } from './state';
import type { SessionTasks, TaskKindAdapter } from './tasks';
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

/** How a turn ended. */
export interface TurnOutcome {
  stopReason: StopReason;
  error?: ErrorInfo;
}

/** What a feature may do with one session. */
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
}

/** What a feature sees of the core it belongs to. */
export interface CoreContext {
  readonly workspace: string;
  readonly home: string;
  readonly host: WorkspaceInfo['host'];
  now(): number;
  emitApp(event: AppEvent): void;
  /** A session, loading it if needed; throws when it does not exist. */
  session(id: string): Promise<SessionHandle>;
  /** Show a folder or file in the system file manager, never opening it (desktop only); resolves to whether it was shown. */
  openPath?(path: string): Promise<boolean>;
  /** Open a file with the system's default application (desktop only); callers check that it is a plain text file first. */
  openFile?(path: string): Promise<boolean>;
}

/**
 * A capability plugged into the core: tools, system-prompt sections, permission decisions, protocol
 * commands and lifecycle hooks. Each capability lives in its own folder under capabilities/; hosts
 * choose which ones a core gets.
 */
export interface Feature {
  readonly name: string;
  /** Tools this feature offers in a session (called per turn, so the set can change). */
  tools?(session: SessionHandle, env: ToolEnv): Tool[];
  /** A section appended to the system prompt (called per step, so changes reach the model at the next step). */
  systemPrompt?(session: SessionHandle): string | undefined | Promise<string | undefined>;
  /** Decide on a call; `undefined` leaves it to the next feature. The first decision wins; no decision allows. */
  authorize?(session: SessionHandle, call: ResolvedCall): Promise<Authorization | undefined>;
  /** Folders outside the workspace the file tools may use as if inside it (e.g. skill folders). */
  readableRoots?(): readonly string[];
  /** Protocol commands this feature implements. */
  commands?: Partial<CommandHandlers>;
  onSessionLoaded?(session: SessionHandle): void | Promise<void>;
  /** Requests of this session waiting for the user's answer (listed with the sessions). */
  waitingFor?(sessionId: string): Array<{ id: string; turnId: string }>;
  onTurnEnded?(session: SessionHandle, outcome: TurnOutcome): void | Promise<void>;
  /** The kinds of background task this capability runs (SessionHandle.tasks). */
  taskKinds?: readonly TaskKindAdapter[];
  /**
   * The conversation is being compacted: messages the model must still read afterwards (e.g. the skills
   * loaded, the todo list). They are added after the handoff note, verbatim.
   */
  onCompaction?(session: SessionHandle): string[] | Promise<string[]>;
  /**
   * Turns were undone: put this feature's state back as it was before them. `before(slot)` is the slot's
   * value at that point (its fallback when it was unset); set it and tell the UI as usual.
   */
  onUndo?(session: SessionHandle, before: <T>(slot: StateSlot<T>) => T): void | Promise<void>;
  /** The session is about to be deleted (its files go next): stop what runs for it. */
  onSessionDeleted?(sessionId: string): void | Promise<void>;
  close?(): Promise<void>;
}

export type FeatureFactory = (core: CoreContext) => Feature;
