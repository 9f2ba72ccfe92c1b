import { join } from 'node:path';
import type { EffortSetting, SessionEvent, SessionEventInput, SessionSummary, Usage } from '#protocol';
import { PAGED_EVENT_TYPES, TAIL_TURNS } from '#protocol/helpers/paging';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { writeFileAtomic } from '../platform/files';
import type { ModelMessage } from '#contract/model';
import { LogWriter } from './log';
import type { EventLine } from './log-scan';
import { scanLogFile, tailOffsetOfFile } from './log-scan-file';
import { fileLength, readLogLines, readLogSpan } from './log-read';
import { LOG_VERSION, coalesceDeltas } from './records';
import { type WaitingPrompt, unfinishedCompactions, unfinishedTurn, waitingPrompts } from './repair';
import { Timeline, type TurnMark } from './timeline';

export interface SessionMeta {
  id: string;
  title: string;
  workspace: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
  /** The model the user chose for this session's turns (absent: the provider's). */
  model?: string;
  /** The effort the user chose for this session's turns (absent: the settings' default). */
  effort?: EffortSetting;
  /** The user named the session: its first prompt does not replace the title. */
  named?: boolean;
  /** The Deft worktree the session runs in (its workspace), so sessions can be grouped by repository and branch. */
  worktree?: { name: string; branch: string; baseBranch: string | null; repoRoot: string };
  /** The session this one was forked from, and the prompt it was forked after (0: before any prompt). */
  forkedFrom?: { sessionId: string; atPrompt: number; title: string };
}

export const LOG_FILE = 'log.jsonl';
/** A log gets a snapshot (tail-view.ts) every this many turns, and when its session is let go of. */
export const SNAPSHOT_EVERY_TURNS = 25;
export const META_FILE = 'meta.json';

/** A page of earlier events and the cursor for the page before it (null: none). */
export interface EventPage {
  events: SessionEvent[];
  before: number | null;
}

/**
 * One conversation: its events (what the UI shows), its context (what the model reads), and named
 * state, all persisted to an append-only log. Events get consecutive `seq` numbers.
 *
 * Only the session's tail is held in memory (its last turns, and what is not on disk yet); earlier
 * events stay in the log and are read back by page through an index of where each one sits.
 */
export class Session {
  /** The events in memory: every one from the start of the tail on, in seq order. */
  readonly events: SessionEvent[] = [];
  /**
   * Where the events written to the log sit in it, in seq order: every one from byte `indexedFrom` on, and
   * before it only those that carry state (the rest are indexed when a page before the tail is asked for).
   */
  private lines: EventLine[] = [];
  private indexedFrom = 0;
  private indexingEarlier: Promise<void> | null = null;
  /** The seq of the first event in the log when it was loaded (null: none). */
  private firstLoggedSeq: number | null = null;
  /** The events before `events` that carry state (not paged), compacted (compactEarlierState): a window gets them with the tail. */
  private earlierState: SessionEvent[] = [];
  /** The seq of every turn's first event, in order. */
  private readonly turnStarts: number[] = [];
  /** Written by this version: events read back are not validated again. */
  private trusted = true;
  /** How many turns the session had when its log's last snapshot was written (-1: the log has none). */
  private snapshotAtTurns = -1;
  /** The unreadable lines found when the log was loaded (a snapshot repeats them to a window's first open). */
  private loadProblems: string[] = [];
  private timeline = new Timeline();
  readonly usageTotal: Usage = { inputTokens: 0, outputTokens: 0 };
  running = false;
  /** The messages still queued when the log was loaded (the runtime's queue takes them over). */
  waitingAtLoad: WaitingPrompt[] = [];
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

  /** What the model reads. A loaded session leaves its large messages in the log until then: see `loadContext`. */
  get context(): readonly ModelMessage[] {
    return this.timeline.context;
  }

  /** Read what the model reads back from the log without blocking (before a turn or a compaction: `context` would block). */
  loadContext(): Promise<void> {
    return this.timeline.loadContext();
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
    const path = join(dir, LOG_FILE);
    let scan = await scanLogFile(path, { indexFrom: await tailOffsetOfFile(path, TAIL_TURNS), leaveMessages: true });
    const session = new Session(dir, meta, now);
    // Best effort: a log that cannot be written (read-only) still opens for reading.
    await session.log.endTornTail().catch(() => {});
    session.log.startAt(await fileLength(path));
    session.trusted = scan.trusted || scan.size === 0;
    const problems = [...scan.problems];
    // The state events before the tail come compacted (scan.earlier), those from there on with their lines.
    const stateEvents: SessionEvent[] = [...scan.earlier];
    for (const line of scan.lines) {
      session.seq = Math.max(session.seq, line.seq);
      if (line.type === 'turn.started') session.turnStarts.push(line.seq);
      if (line.event) stateEvents.push(line.event);
    }
    Object.assign(session.usageTotal, scan.usage);
    const tailFrom = session.tailStart();
    let tailAt = firstAbove(scan.lines, tailFrom - 1, bySeq);
    // The tail must be indexed in full; where the log is not laid out as expected, index all of it now.
    if (scan.indexedFrom > 0 && !((scan.lines[tailAt]?.start ?? -1) >= scan.indexedFrom)) {
      scan = { ...scan, lines: (await scanLogFile(path)).lines, indexedFrom: 0, earlier: [] };
      tailAt = firstAbove(scan.lines, tailFrom - 1, bySeq);
    }
    session.lines = scan.lines;
    session.indexedFrom = scan.indexedFrom;
    session.firstLoggedSeq = scan.firstSeq;
    session.earlierState.push(...scan.earlier);
    for (const line of scan.lines.slice(0, tailAt)) {
      if (line.event && !PAGED_EVENT_TYPES.has(line.event.type)) session.earlierState.push(line.event);
      // Before the tail the index keeps where each event sits, not the event (a page reads it back).
      delete line.event;
    }
    const tailLines = scan.lines.slice(tailAt);
    const read = await readLogLines(path, tailLines, session.trusted);
    tailLines.forEach((line, i) => {
      const event = read[i];
      if (event) session.events.push(event);
      else problems.push(`An event of the session log (seq ${line.seq}) cannot be read and was skipped.`);
    });
    session.earlierState = compactEarlierState(session.earlierState);
    session.unflushedFrom = session.events.length;
    session.snapshotAtTurns = scan.snapshotAt === undefined ? -1 : session.turnStarts.length;
    session.loadProblems = problems.slice(0, 50);
    const replayed = scan.timeline.length;
    session.timeline = scan.timeline;
    session.timeline.repair();
    for (const { compactionId, trigger, turnId, tokensBefore } of unfinishedCompactions(stateEvents)) {
      const error = { code: 'internal' as const, message: 'Deft stopped while compacting the conversation. Run /compact again if the context is still full.' };
      session.emit({ type: 'compaction.ended', compactionId, trigger, ...(turnId ? { turnId } : {}), outcome: 'failed', tokensBefore, error });
    }
    session.waitingAtLoad = waitingPrompts(stateEvents);
    const open = unfinishedTurn(stateEvents);
    if (open) {
      session.emit({
        type: 'turn.ended',
        turnId: open,
        stopReason: 'error',
        error: { code: 'internal', message: 'Deft stopped while this turn was running. The conversation can continue.' },
        durationMs: 0,
      });
      if (session.timeline.length !== replayed) {
        for (const message of session.context.slice(replayed)) session.log.append({ r: 'context', m: message });
      }
    }
    if (session.events.length > session.unflushedFrom) await session.flush();
    return { session, problems };
  }

  subscribe(listener: (event: SessionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stamp an event with this session's id, the next seq and the time; keep it and notify listeners. */
  emit(input: SessionEventInput): SessionEvent {
    const event = { ...input, sessionId: this.id, seq: ++this.seq, at: this.now() };
    this.events.push(event);
    if (event.type === 'turn.started') this.turnStarts.push(event.seq);
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
    const calls = this.timeline.callsSinceCompaction;
    this.timeline.compact(context);
    this.log.append({ r: 'compaction', id, calls, context: [...context] });
  }

  /**
   * Drop the last `count` turns from the context. Returns the first undone turn's mark (its `state` is the
   * state before the undone turns, for the capabilities to restore), or why it cannot be done.
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
    for (const event of fresh) {
      const at = this.log.append({ r: 'event', e: event });
      this.lines.push({ seq: event.seq, ...at, type: event.type, ...(PAGED_EVENT_TYPES.has(event.type) ? {} : { event }) });
    }
    if (this.turnStarts.length - Math.max(this.snapshotAtTurns, 0) >= SNAPSHOT_EVERY_TURNS) this.appendSnapshot();
    this.letGoOfEarlierTurns();
    await this.log.flush();
    await writeFileAtomic(join(this.dir, META_FILE), JSON.stringify(this.meta, null, 2) + '\n', 0o600);
  }

  /**
   * Write a snapshot (see tail-view.ts) if the log has none or turns were added since its last one: the session is
   * let go of, and its next first open reads the log from its tail.
   */
  async snapshot(): Promise<void> {
    if (this.turnStarts.length !== this.snapshotAtTurns) this.appendSnapshot();
    await this.flush();
  }

  /**
   * The log, as loaded, has no snapshot and more turns than a tail (a log from before snapshots, or one whose session
   * was never let go of): its next first open would read it whole before showing its tail (tail-view.ts).
   */
  get lacksSnapshot(): boolean {
    return this.snapshotAtTurns === -1 && this.trusted && this.turnStarts.length > TAIL_TURNS;
  }

  /** A snapshot record for the log as flushed now: what a window needs of it before the start of the tail. */
  private appendSnapshot(): void {
    if (this.turnStarts.length <= TAIL_TURNS || this.unflushedFrom !== this.events.length) return;
    const tailSeq = this.tailStart();
    const line = this.lines[firstAbove(this.lines, tailSeq - 1, bySeq)];
    if (!line || line.seq !== tailSeq || line.type !== 'turn.started') return;
    const { earlier } = this.tail();
    this.log.append({ r: 'snapshot', tailFrom: line.start, tailSeq, firstSeq: this.firstSeq(), earlier, problems: this.loadProblems });
    this.snapshotAtTurns = this.turnStarts.length;
  }

  /**
   * Events after `afterSeq` for a UI catching up. When `afterSeq` falls inside a merged delta the UI
   * cannot splice the text, so it gets everything with `reset`.
   */
  eventsAfter(afterSeq: number | undefined): { events: SessionEvent[]; reset: false } | ({ reset: true; earlier: SessionEvent[] } & EventPage) {
    if (afterSeq === undefined || afterSeq === 0) return { ...this.tail(), reset: true };
    const held = (this.events[0]?.seq ?? this.seq + 1) - 1;
    const straddles = this.events.some((e) => 'fromSeq' in e && e.fromSeq !== undefined && e.fromSeq <= afterSeq && e.seq > afterSeq);
    if (straddles || afterSeq > this.seq || afterSeq < held) return { ...this.tail(), reset: true };
    const start = firstAbove(this.events, afterSeq, bySeq);
    return { events: this.events.slice(start), reset: false };
  }

  /**
   * What a window opening the session gets: its last TAIL_TURNS turns, the cursor for the page before
   * them, and the earlier events that carry state (see PAGED_EVENT_TYPES).
   */
  tail(): EventPage & { earlier: SessionEvent[] } {
    const start = firstAbove(this.events, this.tailStart() - 1, bySeq);
    const events = this.events.slice(start);
    const earlier = compactEarlierState([...this.earlierState, ...this.events.slice(0, start).filter((e) => !PAGED_EVENT_TYPES.has(e.type))]);
    const first = events[0]?.seq;
    return { events, before: first !== undefined && this.firstSeq() < first ? first : null, earlier };
  }

  /** Every event of the `turns` turns before `beforeSeq` (read back from the log where they are no longer in memory). */
  async eventsBefore(beforeSeq: number, turns: number): Promise<EventPage> {
    await this.indexEarlier();
    const count = firstAbove(this.turnStarts, beforeSeq - 1, (seq) => seq);
    const from = count > turns ? this.turnStarts[count - turns]! : 0;
    const held = this.events[0]?.seq ?? Infinity;
    const onDisk = this.lines.slice(firstAbove(this.lines, from - 1, bySeq), firstAbove(this.lines, Math.min(beforeSeq, held) - 1, bySeq));
    const events = onDisk.length ? await this.readBack(onDisk) : [];
    for (const event of this.events) if (event.seq >= from && event.seq < beforeSeq) events.push(event);
    return { events, before: from > this.firstSeq() ? from : null };
  }

  /** Every event of the session, the ones no longer in memory read back from the log. */
  async allEvents(): Promise<SessionEvent[]> {
    return (await this.eventsBefore(this.seq + 1, Number.MAX_SAFE_INTEGER)).events;
  }

  /** Events read back from the log. Should the index no longer match the file, the log is indexed again once. */
  private async readBack(lines: EventLine[]): Promise<SessionEvent[]> {
    await this.log.written();
    const path = join(this.dir, LOG_FILE);
    const read = await readLogLines(path, lines, this.trusted);
    const complete = read.filter((e): e is SessionEvent => e !== null);
    if (complete.length === read.length) return complete;
    const { first, last } = { first: lines[0]!.seq, last: lines[lines.length - 1]!.seq };
    this.lines = (await scanLogFile(path)).lines;
    this.indexedFrom = 0;
    const fresh = this.lines.filter((l) => l.seq >= first && l.seq <= last);
    return (await readLogLines(path, fresh, this.trusted)).filter((e): e is SessionEvent => e !== null);
  }

  /** Index the events before `indexedFrom` (once; a page before the tail needs them). */
  private indexEarlier(): Promise<void> {
    if (this.indexedFrom === 0) return Promise.resolve();
    this.indexingEarlier ??= (async () => {
      await this.log.written();
      const path = join(this.dir, LOG_FILE);
      const until = this.indexedFrom;
      // The log must still be laid out as indexed: a line ends just before `until`, and the first line after it is the same event.
      const next = this.lines.find((line) => line.start >= until);
      const [again] = next ? await readLogLines(path, [{ seq: next.seq, start: next.start, end: next.end, type: next.type }], this.trusted) : [];
      const feed = await readLogSpan(path, until - 1, until);
      const intact = feed[0] === 0x0a && (!next || again?.seq === next.seq);
      const earlier = (await scanLogFile(path, intact ? { until } : {})).lines;
      // The index keeps where the events sit, not the events (a page reads them back).
      for (const line of earlier) delete line.event;
      if (this.indexedFrom !== until) return;
      this.lines = intact ? [...earlier, ...this.lines.filter((line) => line.start >= until)] : earlier;
      this.indexedFrom = 0;
    })().finally(() => {
      this.indexingEarlier = null;
    });
    return this.indexingEarlier;
  }

  /** The seq the tail starts at: the first event of its first turn (0: every event is in the tail). */
  private tailStart(): number {
    return this.turnStarts.length > TAIL_TURNS ? this.turnStarts[this.turnStarts.length - TAIL_TURNS]! : 0;
  }

  private firstSeq(): number {
    return Math.min(this.firstLoggedSeq ?? Infinity, this.lines[0]?.seq ?? Infinity, this.events[0]?.seq ?? Infinity);
  }

  /** Once twice the tail is in memory, the turns before the tail leave it (they are on disk; their state events are kept). */
  private letGoOfEarlierTurns(): void {
    const held = this.events[0]?.seq ?? Infinity;
    if (this.turnStarts.length - firstAbove(this.turnStarts, held - 1, (seq) => seq) <= 2 * TAIL_TURNS) return;
    const keepFrom = this.tailStart();
    let cut = 0;
    while (cut < this.unflushedFrom && this.events[cut]!.seq < keepFrom) cut++;
    this.earlierState = compactEarlierState([...this.earlierState, ...this.events.slice(0, cut).filter((e) => !PAGED_EVENT_TYPES.has(e.type))]);
    this.events.splice(0, cut);
    this.unflushedFrom -= cut;
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

  /** The effort for the next turns (null: the settings' default); written to disk at once. */
  async setEffort(effort: EffortSetting | null): Promise<void> {
    if (effort) this.meta.effort = effort;
    else delete this.meta.effort;
    await this.flush();
  }

  get effort(): EffortSetting | undefined {
    return this.meta.effort;
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

const bySeq = (item: { seq: number }) => item.seq;

/** The index of the first item whose key is above `after`, in a list ascending by that key. */
function firstAbove<T>(list: readonly T[], after: number, key: (item: T) => number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]!) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function titleFrom(prompt: string): string {
  const line =
    prompt
      .trim()
      .split('\n')
      .find((l) => l.trim()) ?? '';
  const clean = line.replace(/\s+/g, ' ').trim();
  return clean.length > 80 ? clean.slice(0, 79) + '…' : clean || 'New session';
}
