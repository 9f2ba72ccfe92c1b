import { join } from 'node:path';
import type { SessionEvent, SessionEventInput, SessionSummary, Usage } from '../../../protocol';
import { writeFileAtomic } from '../platform/files';
import type { ModelMessage } from '../providers/types';
import { LogWriter, replayLog } from './log';
import { LOG_VERSION, coalesceDeltas } from './records';
import { repairContext, unfinishedTurn } from './repair';

export interface SessionMeta {
  id: string;
  title: string;
  workspace: string;
  createdAt: number;
  updatedAt: number;
  turns: number;
}

export const LOG_FILE = 'log.jsonl';
export const META_FILE = 'meta.json';

/**
 * One conversation: its events (what the UI shows), its context (what the model reads), and named
 * state, all persisted to an append-only log. Events get consecutive `seq` numbers.
 */
export class Session {
  readonly events: SessionEvent[] = [];
  context: ModelMessage[] = [];
  readonly state = new Map<string, unknown>();
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
    session.events.push(...replay.events);
    session.unflushedFrom = session.events.length;
    session.seq = replay.events.reduce((max, e) => Math.max(max, e.seq), 0);
    session.context = repairContext(replay.context);
    for (const [key, value] of replay.state) session.state.set(key, value);
    for (const event of replay.events) {
      if (event.type === 'usage') Object.assign(session.usageTotal, { inputTokens: event.total.inputTokens, outputTokens: event.total.outputTokens });
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
      if (session.context.length !== replay.context.length) {
        for (const message of session.context.slice(replay.context.length)) session.log.append({ r: 'context', m: message });
      }
      await session.flush();
    }
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
    this.context.push(message);
    this.log.append({ r: 'context', m: message });
  }

  setState(key: string, value: unknown): void {
    this.state.set(key, value);
    this.log.append({ r: 'state', key, value });
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

  /** Record the first prompt as the title and bump the counters. */
  noteTurnStarted(prompt: string): void {
    if (this.meta.turns === 0 || !this.meta.title) this.meta.title = titleFrom(prompt);
    this.meta.turns++;
    this.meta.updatedAt = this.now();
  }

  touch(): void {
    this.meta.updatedAt = this.now();
  }

  summary(): SessionSummary {
    return { ...this.meta, running: this.running };
  }
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
