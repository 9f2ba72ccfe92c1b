import type { SessionEvent } from '#protocol';
import type { ModelMessage } from '#contract/model';

/** 2: events are written as this Deft's protocol types (a log of version 2 is not validated again on replay). */
export const LOG_VERSION = 2;

/** One line of a session log. */
export type LogRecord =
  | { r: 'header'; version: number; sessionId: string; workspace: string; createdAt: number }
  | { r: 'event'; e: SessionEvent }
  | { r: 'context'; m: ModelMessage }
  /** A named piece of session state (latest value wins on replay), e.g. a todo list or a mode. */
  | { r: 'state'; key: string; value: unknown }
  /**
   * A compaction: `context` replaces everything the model read before (later context records append to it).
   * `calls` (written since log version 2 gained it; absent in older logs) lists the tool-call ids of the
   * messages appended since the compaction before: when every compaction back to some point lists them, a
   * replay need not read the messages they replaced (see log-scan's skip).
   */
  | { r: 'compaction'; id: string; calls?: string[]; context: ModelMessage[] }
  /** An undo: these turns, the last ones in order, leave the context (the state records after it restore their state). */
  | { r: 'undo'; turnIds: string[] }
  /** A redo: the turns the undo just before it removed are back in the context (nothing was added in between). */
  | { r: 'redo'; turnIds: string[] }
  /**
   * What a window opening the session needs of the log before `tailFrom` (see tail-view.ts), so that a first open
   * reads the log from there instead of from its start: `tailFrom` is where the turn with seq `tailSeq` starts (the
   * first of the last TAIL_TURNS turns when it was written), `earlier` the state events before it compacted
   * (compactEarlierState), `firstSeq` the log's first event, `problems` the unreadable lines the session knew of.
   * Only ever a shortcut: a replay of the log ignores it.
   */
  | { r: 'snapshot'; tailFrom: number; tailSeq: number; firstSeq: number | null; earlier: SessionEvent[]; problems: string[] };

type Delta = Extract<SessionEvent, { type: 'assistant.delta' | 'thinking.delta' }>;

function isDelta(event: SessionEvent): event is Delta {
  return event.type === 'assistant.delta' || event.type === 'thinking.delta';
}

/**
 * Merge runs of streamed deltas (same type, turn and step) into one event carrying the last seq and
 * `fromSeq` = the first. Logs and replays stay small however finely the provider streamed.
 */
export function coalesceDeltas(events: readonly SessionEvent[]): SessionEvent[] {
  const out: SessionEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (last && isDelta(event) && isDelta(last) && last.type === event.type && last.turnId === event.turnId && last.step === event.step) {
      out[out.length - 1] = { ...last, text: last.text + event.text, seq: event.seq, at: event.at, fromSeq: last.fromSeq ?? last.seq };
    } else {
      out.push(event);
    }
  }
  return out;
}
