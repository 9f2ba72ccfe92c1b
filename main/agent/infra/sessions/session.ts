import { join } from 'node:path';
import type { SessionEvent, SessionEventInput, SessionSummary, Usage } from '../../../../protocol';
import { writeFileAtomic } from '../platform/files';
import type { ModelMessage } from '../providers/types';
import { LogWriter, replayLog } from './log';
import { LOG_VERSION, coalesceDeltas } from './records';
import { repairContext, unfinishedCompactions, unfinishedTurn } from './repair';
import { Timeline, type TurnMark, frozen } from './timeline';

export interface SessionMeta {
  id: string;
  title: string;
  workspace: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
  /** The model the user chose for this session's turns (absent: the provider's). */
  model?: string;
  /** The user named the session: its first prompt does not replace the title. */
  named?: boolean;
}

export const LOG_FILE = 'log.jsonl';
export const META_FILE = 'meta.json';

/**
 * One conversation: its events (what the UI shows), its context (what the model reads), and named
 * state, all persisted to an append-only log. Events get consecutive `seq` numbers.
 */
export class Session {
  readonly events: SessionEvent[] = [];
  private timeline = new Timeline();
  readonly usageTotal: Usage = { inputTokens: 0, outputTokens: 0 };
  running = false;
  private seq = 0;
  private unflushedFrom = 0;
  private readonly log: LogWriter;
  private readonly listeners = new Set<(event: SessionEvent) => void>();

  private constructor(
    readonly dir: string,
    private meta: SessionMeta,
    private readonly now: () => number,
  ) {
    this.log = new LogWriter(join(dir, LOG_FILE));
  }

  get id(): string {
    return this.meta.id;
  }

  /** What the model reads. */
  get context(): readonly ModelMessage[] {
    return this.timeline.context;
  }

  get state(): ReadonlyMap<string, unknown> {
    return this.timeline.state;
  }

  /** Every tool-call id used so far, including ones no longer in the context. */
  get callIds(): ReadonlySet<string> {
    return this.timeline.callIds;
  }

  static async create(dir: string, meta: SessionMeta, now: () => number): Promise<Session> {
    const session = new Session(dir, meta, now);
    session.log.append({ r: 'header', version: LOG_VERSION, sessionId: meta.id, workspace: meta.workspace, createdAt: meta.createdAt });
    await session.flush();
    return session;
  }

  /** Rebuild from disk. A turn cut short by a crash is closed, and its history repaired. */
  static async load(dir: string, meta: SessionMeta, now: () => number): Promise<{ session: Session; problems: string[] }> {
    const replay = await replayLog(join(dir, LOG_FILE));
    const session = new Session(dir, meta, now);
    // Best effort: a log that cannot be written (read-only) still opens for reading.
    await session.log.endTornTail().catch(() => {});
    session.events.push(...replay.events);
    session.unflushedFrom = session.events.length;
    session.seq = replay.events.reduce((max, e) => Math.max(max, e.seq), 0);
    const replayed = replay.timeline.context;
    session.timeline = replay.timeline;
    session.timeline.context = repairContext(replayed).map(frozen);
    for (const event of replay.events) {
      if (event.type === 'usage') Object.assign(session.usageTotal, event.total);
    }
    for (const { compactionId, trigger, turnId, tokensBefore } of unfinishedCompactions(replay.events)) {
      const error = { code: 'internal' as const, message: 'Deft stopped while compacting the conversation. Run /compact again if the context is still full.' };
      session.emit({ type: 'compaction.ended', compactionId, trigger, ...(turnId ? { turnId } : {}), outcome: 'failed', tokensBefore, error });
    }
    const open = unfinishedTurn(replay.events);
    if (open) {
      session.emit({
        type: 'turn.ended',
        turnId: open,
        stopReason: 'error',
        error: { code: 'internal', message: 'Deft stopped while this turn was running. The conversation can continue.' },
        durationMs: 0,
      });
      if (session.context.length !== replayed.length) {
        for (const message of session.context.slice(replayed.length)) session.log.append({ r: 'context', m: message });
      }
    }
    if (session.events.length > session.unflushedFrom) await session.flush();
    return { session, problems: replay.problems };
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stamp an event with this session's id, the next seq and the time; keep it and notify listeners. */
  emit(input: SessionEventInput): SessionEvent {
    const event = { ...input, sessionId: this.id, seq: ++this.seq, at: this.now() };
    this.events.push(event);
    for (const listener of this.listeners) listener(event);
    return event;
  }

  appendContext(message: ModelMessage): void {
    this.timeline.append(message);
    this.log.append({ r: 'context', m: message });
  }

  /** Add a model call's tokens to the session's total and tell the UI (goal budgets read the total). */
  countUsage(turnId: string, usage: Usage, model?: string): void {
    const total = this.usageTotal;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    // Cache figures are summed where the provider reports them (a total of 0 says it reported none yet).
    if (usage.cachedTokens !== undefined) total.cachedTokens = (total.cachedTokens ?? 0) + usage.cachedTokens;
    if (usage.cacheWriteTokens !== undefined) total.cacheWriteTokens = (total.cacheWriteTokens ?? 0) + usage.cacheWriteTokens;
    this.emit({ type: 'usage', turnId, step: usage, total: { ...total }, ...(model ? { model } : {}) });
  }

  setState(key: string, value: unknown): void {
    this.timeline.set(key, value);
    this.log.append({ r: 'state', key, value });
  }

  /** A compaction: `context` replaces what the model reads; the turns before it can no longer be undone. */
  compactContext(id: string, context: readonly ModelMessage[]): void {
    this.timeline.compact(context);
    this.log.append({ r: 'compaction', id, context: [...context] });
  }

  /**
   * Drop the last `count` turns from the context. Returns the first undone turn's mark (its `state` is the
   * state before the undone turns, for the features to restore), or why it cannot be done.
   */
  undoTurns(count: number): { turnIds: string[]; before: TurnMark['state'] } | string {
    const marks = this.timeline.lastTurns(count);
    if (typeof marks === 'string') return marks;
    const turnIds = marks.map((m) => m.turnId);
    this.timeline.undo(turnIds);
    this.log.append({ r: 'undo', turnIds });
    return { turnIds, before: marks[0]!.state };
  }

  /** The turns the model still reads, oldest first. */
  contextTurns(): string[] {
    return this.timeline.marks.map((m) => m.turnId);
  }

  /** Drop `turnId` and every turn after it from the context; as undoTurns. */
  undoFrom(turnId: string): { turnIds: string[]; before: TurnMark['state'] } | string {
    const marks = this.timeline.turnsFrom(turnId);
    if (typeof marks === 'string') return marks;
    return this.undoTurns(marks.length);
  }

  /** Put back the turns the last undo removed; returns the state from just before that undo, or why not. */
  redoUndo(turnIds: readonly string[]): TurnMark['state'] | string {
    const state = this.timeline.redo(turnIds);
    if (!state) return 'The conversation has changed since those turns were undone, so they cannot be put back.';
    this.log.append({ r: 'redo', turnIds: [...turnIds] });
    return state;
  }

  /** Write everything since the last flush (deltas merged) and the metadata. */
  async flush(): Promise<void> {
    const fresh = coalesceDeltas(this.events.slice(this.unflushedFrom));
    this.events.splice(this.unflushedFrom, this.events.length - this.unflushedFrom, ...fresh);
    this.unflushedFrom = this.events.length;
    for (const event of fresh) this.log.append({ r: 'event', e: event });
    await this.log.flush();
    await writeFileAtomic(join(this.dir, META_FILE), JSON.stringify(this.meta, null, 2) + '\n', 0o600);
  }

  /**
   * Events after `afterSeq` for a UI catching up. When `afterSeq` falls inside a merged delta the UI
   * cannot splice the text, so it gets everything with `reset`.
   */
  eventsAfter(afterSeq: number | undefined): { events: SessionEvent[]; reset: boolean } {
    if (afterSeq === undefined || afterSeq === 0) return { events: [...this.events], reset: true };
    const straddles = this.events.some((e) => 'fromSeq' in e && e.fromSeq !== undefined && e.fromSeq <= afterSeq && e.seq > afterSeq);
    if (straddles || afterSeq > this.seq) return { events: [...this.events], reset: true };
    const start = lowerBound(this.events, afterSeq);
    return { events: this.events.slice(start), reset: false };
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Record the first prompt as the title (unless the user named the session) and bump the counters. */
  noteTurnStarted(prompt: string): void {
    if (!this.meta.named && (this.meta.turns === 0 || !this.meta.title)) this.meta.title = titleFrom(prompt);
    this.meta.turns++;
    this.meta.updatedAt = this.now();
  }

  touch(): void {
    this.meta.updatedAt = this.now();
  }

  /** The title the user gave; written to disk at once. */
  async rename(title: string): Promise<void> {
    this.meta.title = title;
    this.meta.named = true;
    await this.flush();
  }

  /** The model for the next turns (null: the provider's); written to disk at once. */
  async setModel(model: string | null): Promise<void> {
    if (model) this.meta.model = model;
    else delete this.meta.model;
    await this.flush();
  }

  get model(): string | undefined {
    return this.meta.model;
  }

  summary(): SessionSummary {
    return summaryOf(this.meta, this.running);
  }
}

/** What the UI is told about a session (the bookkeeping fields stay on disk). */
export function summaryOf(meta: SessionMeta, running = false): SessionSummary {
  const { named: _named, ...rest } = meta;
  return { ...rest, running };
}

function lowerBound(events: readonly SessionEvent[], afterSeq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.seq <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function titleFrom(prompt: string): string {
  const line = prompt.trim().split('\n').find((l) => l.trim()) ?? '';
  const clean = line.replace(/\s+/g, ' ').trim();
  return clean.length > 80 ? clean.slice(0, 79) + '…' : clean || 'New session';
}
