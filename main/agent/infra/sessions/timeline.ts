import type { ModelMessage } from '#contract/model';
import { repairContext } from './repair';

/** A context record at least this long (bytes) is left in the log file when a timeline is read from one. */
const LEAVE_ON_DISK = 256;

/** A message left in the log file: where its record sits, and what repairContext and a failed read-back need of it. */
export interface LoggedMessage {
  logged: true;
  start: number;
  end: number;
  role: ModelMessage['role'];
  toolCallId?: string;
  toolName?: string;
  toolCalls?: Array<{ id: string; name: string }>;
}

/** Reads messages left in the log file, in order: `now` blocking, `later` not. */
export interface LogReadBack {
  now(logged: readonly LoggedMessage[]): ModelMessage[];
  later(logged: readonly LoggedMessage[]): Promise<ModelMessage[]>;
}

function isLogged(entry: ModelMessage | LoggedMessage): entry is LoggedMessage {
  return 'logged' in entry;
}

function loggedMessage(message: ModelMessage, at: { start: number; end: number }): LoggedMessage {
  const entry: LoggedMessage = { logged: true, start: at.start, end: at.end, role: message.role };
  if (message.role === 'tool') Object.assign(entry, { toolCallId: message.toolCallId, toolName: message.toolName });
  if (message.role === 'assistant' && message.toolCalls?.length) entry.toolCalls = message.toolCalls.map(({ id, name }) => ({ id, name }));
  return entry;
}

/** Where a turn begins in the context, and the session state just before it (what an undo restores). */
export interface TurnMark {
  turnId: string;
  index: number;
  state: ReadonlyMap<string, unknown>;
}

/**
 * What the model reads and the session's named state, built from log records in the same way live and
 * on replay. A turn's prompt (a user message carrying its turnId) opens a mark; a compaction replaces the
 * context and clears the marks (an undo cannot go back past it); an undo drops the last turns.
 */
export class Timeline {
  /** What the model reads: messages, and (in a timeline read from a log file) large ones left on disk until asked for. */
  private entries: Array<ModelMessage | LoggedMessage> = [];
  readonly state = new Map<string, unknown>();
  marks: TurnMark[] = [];
  compactions = 0;
  /** Every tool-call id the conversation has used, compacted or undone ones included (ids stay unique in the transcript). */
  readonly callIds = new Set<string>();
  /** The tool-call ids added since the last compaction: the next compaction record lists them (see LogRecord). */
  callsSinceCompaction: string[] = [];
  /** What the last undo removed, while nothing has been added since: a redo puts it back. */
  private lastUndo: { turnIds: string[]; removed: Array<ModelMessage | LoggedMessage>; marks: TurnMark[]; state: ReadonlyMap<string, unknown> } | null = null;
  /**
   * A copy of `state` as it is now, shared by the marks made while it does not change (a long session's turns
   * would otherwise each hold a map of their own, most of them alike); null once it changes.
   */
  private stateNow: ReadonlyMap<string, unknown> | null = null;
  /** Whether a message may still be on disk only (in `entries` or `lastUndo`): set when `append` leaves one there. */
  private holdsLogged = false;

  /** `readBack` reads messages left on disk (see `append`'s `logged`); without it every message is held. */
  constructor(private readonly readBack?: LogReadBack) {}

  /** What the model reads. Messages left on disk are read back first, at once (`loadContext` does it without blocking). */
  get context(): ModelMessage[] {
    // Only a message appended with `logged` leaves one on disk: until then (and once all are read back) no look is needed.
    if (this.holdsLogged) {
      const logged = this.logged();
      if (logged.length) this.fill(logged, this.readBack!.now(logged));
      this.holdsLogged = false;
    }
    return this.entries as ModelMessage[];
  }

  /** Read back the messages left on disk (once; they stay in memory after), so that `context` does not block. */
  async loadContext(): Promise<void> {
    if (!this.holdsLogged) return;
    const logged = this.logged();
    if (logged.length) this.fill(logged, await this.readBack!.later(logged));
  }

  private logged(): LoggedMessage[] {
    return this.readBack ? [...this.entries, ...(this.lastUndo?.removed ?? [])].filter(isLogged) : [];
  }

  private fill(logged: readonly LoggedMessage[], read: readonly ModelMessage[]): void {
    const by = new Map(logged.map((entry, i) => [entry, frozen(read[i]!)]));
    const put = (entry: ModelMessage | LoggedMessage) => (isLogged(entry) ? (by.get(entry) ?? entry) : entry);
    this.entries = this.entries.map(put);
    if (this.lastUndo) this.lastUndo.removed = this.lastUndo.removed.map(put);
  }

  set context(messages: ModelMessage[]) {
    this.entries = messages;
  }

  /** How many messages the model reads (none is read back for this). */
  get length(): number {
    return this.entries.length;
  }

  /** Whether a message whose record is this long (bytes) would be left on disk by `append`. */
  leavesOnDisk(length: number): boolean {
    return Boolean(this.readBack) && length >= LEAVE_ON_DISK;
  }

  /** How many of the messages are on disk only (read back when `context` is asked for). */
  get onDisk(): number {
    return this.entries.reduce((n, entry) => n + (isLogged(entry) ? 1 : 0), 0);
  }

  /** After a crash: tool calls without results get one saying so (see repairContext); nothing is read back for it. */
  repair(): void {
    this.entries = repairContext(this.entries).map((entry) => (isLogged(entry) ? entry : frozen(entry)));
  }

  /**
   * A message at the end. With `logged` (where its record sits in the log file) a large one is not held: only
   * what the timeline's bookkeeping reads of it is, and it is read back from the file when `context` is asked for.
   */
  append(message: ModelMessage, logged?: { start: number; end: number }): void {
    this.lastUndo = null;
    if (message.role === 'user' && message.turnId) this.marks.push({ turnId: message.turnId, index: this.entries.length, state: this.stateCopy() });
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        this.callIds.add(call.id);
        this.callsSinceCompaction.push(call.id);
      }
    }
    if (logged && this.leavesOnDisk(logged.end - logged.start)) {
      this.entries.push(loggedMessage(message, logged));
      this.holdsLogged = true;
    } else {
      this.entries.push(frozen(message));
    }
  }

  set(key: string, value: unknown): void {
    this.stateNow = null;
    this.state.set(key, value);
  }

  /** `state` as it is now: the marks' copy (never changed; see stateNow). */
  private stateCopy(): ReadonlyMap<string, unknown> {
    return (this.stateNow ??= new Map(this.state));
  }

  compact(context: readonly ModelMessage[]): void {
    this.lastUndo = null;
    this.entries = context.map(frozen);
    this.marks = [];
    this.compactions++;
    this.callsSinceCompaction = [];
  }

  /** The marks of the last `count` turns, or why they cannot be undone. */
  lastTurns(count: number): TurnMark[] | string {
    const available = this.marks.length;
    if (!Number.isInteger(count) || count < 1) return 'Say how many turns to undo: a whole number, 1 or more.';
    if (count <= available) return this.marks.slice(available - count);
    const turns = (n: number) => `${n} turn${n === 1 ? '' : 's'}`;
    if (this.compactions === 0) {
      return available === 0
        ? 'There is nothing to undo: no turn has run in this session yet.'
        : `Only ${turns(available)} can be undone. Use /undo ${available}.`;
    }
    if (available === 0)
      return 'Nothing can be undone since the conversation was compacted: undo cannot go back past a compaction (the earlier turns now live in its handoff note).';
    return `Only the last ${turns(available)} can be undone: undo cannot go back past the compaction before them. Use /undo ${available}.`;
  }

  /** The marks of `turnId` and every turn after it, or why they cannot be undone. */
  turnsFrom(turnId: string): TurnMark[] | string {
    const at = this.marks.findIndex((m) => m.turnId === turnId);
    if (at >= 0) return this.marks.slice(at);
    return this.compactions > 0
      ? 'That turn is no longer in what the model reads: it was compacted into a handoff note or already undone, so the conversation cannot go back to it.'
      : 'That turn is no longer in what the model reads (it was already undone).';
  }

  /** Drop these turns, which must be the last ones in order; returns the first one's mark, or null when they are not. */
  undo(turnIds: readonly string[]): TurnMark | null {
    const tail = this.marks.slice(this.marks.length - turnIds.length);
    if (!turnIds.length || tail.length !== turnIds.length || tail.some((m, i) => m.turnId !== turnIds[i])) return null;
    const first = tail[0]!;
    this.lastUndo = { turnIds: [...turnIds], removed: this.entries.slice(first.index), marks: tail, state: this.stateCopy() };
    this.entries = this.entries.slice(0, first.index);
    this.marks = this.marks.slice(0, this.marks.length - turnIds.length);
    return first;
  }

  /**
   * Put back the turns the last undo removed, when nothing was added to the context since. Returns the
   * session state from just before that undo, or null when it cannot be redone.
   */
  redo(turnIds: readonly string[]): ReadonlyMap<string, unknown> | null {
    const last = this.lastUndo;
    if (!last || last.turnIds.length !== turnIds.length || last.turnIds.some((id, i) => id !== turnIds[i])) return null;
    this.lastUndo = null;
    this.entries.push(...last.removed);
    this.marks.push(...last.marks);
    return last.state;
  }

  /** Whether `redo(turnIds)` would succeed. */
  canRedo(turnIds: readonly string[]): boolean {
    const last = this.lastUndo;
    return Boolean(last && last.turnIds.length === turnIds.length && last.turnIds.every((id, i) => id === turnIds[i]));
  }
}

/**
 * A message in the history never changes: every request must start with the bytes of the one before it
 * (providers cache that prefix). Freezing it makes a change anywhere fail loudly instead of silently
 * costing the cache.
 */
export function frozen<T extends ModelMessage>(message: T): T {
  if (Object.isFrozen(message)) return message;
  if (Array.isArray(message.content)) for (const part of message.content) Object.freeze(part);
  if (message.role === 'assistant') for (const call of message.toolCalls ?? []) Object.freeze(call);
  for (const value of Object.values(message)) if (value && typeof value === 'object') Object.freeze(value);
  return Object.freeze(message);
}
