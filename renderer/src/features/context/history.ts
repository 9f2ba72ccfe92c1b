import type { CompactionOutcome, CompactionTrigger, ErrorInfo, Reattached, SessionEventOf } from '../../../../protocol';

/** A compaction in the transcript: running, then compacted (with its handoff note), failed or stopped. */
export interface CompactionItem {
  kind: 'compaction';
  id: string;
  turnId?: string;
  trigger: CompactionTrigger;
  status: 'running' | CompactionOutcome;
  tokensBefore: number;
  contextWindow?: number;
  instructions?: string;
  tokensAfter?: number;
  note?: string;
  keptMessages?: number;
  reattached?: Reattached[];
  error?: ErrorInfo;
}

/** Compaction and undo as the transcript tracks them. */
export interface HistoryState {
  /** Turns removed from what the model reads (shown greyed, labelled "Undone"). */
  undone: Readonly<Record<string, true>>;
  /** The compaction running now, if any (the composer offers Stop meanwhile). */
  compacting: string | null;
}

export const emptyHistory: HistoryState = { undone: {}, compacting: null };

export const compactionItemId = (compactionId: string) => `compaction:${compactionId}`;

export function compactionStarted(event: SessionEventOf<'compaction.started'>): CompactionItem {
  return {
    kind: 'compaction',
    id: compactionItemId(event.compactionId),
    ...(event.turnId ? { turnId: event.turnId } : {}),
    trigger: event.trigger,
    status: 'running',
    tokensBefore: event.tokensBefore,
    contextWindow: event.contextWindow,
    ...(event.instructions ? { instructions: event.instructions } : {}),
  };
}

export function compactionEnded(item: CompactionItem | undefined, event: SessionEventOf<'compaction.ended'>): CompactionItem {
  const { compactionId, trigger, turnId, outcome, error, note, tokensBefore, tokensAfter, keptMessages, reattached } = event;
  return {
    ...(item ?? { kind: 'compaction', id: compactionItemId(compactionId), trigger, tokensBefore }),
    ...(turnId ? { turnId } : {}),
    status: outcome,
    ...(error ? { error } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(tokensAfter !== undefined ? { tokensAfter } : {}),
    ...(keptMessages !== undefined ? { keptMessages } : {}),
    ...(reattached ? { reattached } : {}),
  };
}

/** The notice left in the transcript after an undo. It says plainly that files were not restored. */
export function undoNotice(count: number): string {
  const what = count === 1 ? 'the last turn' : `the last ${count} turns`;
  return `Undid ${what}: Deft no longer reads ${count === 1 ? 'it' : 'them'}, and the todo list and plan mode are as they were before. Files changed in ${count === 1 ? 'that turn' : 'those turns'} were not restored.`;
}

/** "950", "12k", "1.2k", "128k". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}
