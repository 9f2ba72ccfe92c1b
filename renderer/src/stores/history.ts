import { create } from 'zustand';
import type { CompactionOutcome, CompactionTrigger, ErrorInfo, Reattached, SessionEventOf } from '#protocol';
import { type Row, type RowHandlers, appendRow, indexFromEnd, infoNotice, removeRow, replaceAt } from './rows';
import type { SessionSlice } from './session-slice';

/** Compaction and undo in the open session. */
export interface HistoryState {
  /** Turns removed from what the model reads (shown greyed, labelled "Undone"). */
  undone: Readonly<Record<string, true>>;
  /** The compaction running now, if any (the composer offers Stop meanwhile). */
  compacting: string | null;
}

export const historySlice: SessionSlice<HistoryState> = {
  empty: { undone: {}, compacting: null },
  on: {
    'compaction.started': (state, event) => ({ ...state, compacting: event.compactionId }),
    'compaction.ended': (state, event) => (state.compacting === event.compactionId ? { ...state, compacting: null } : state),
    'turns.undone': (state, event) => {
      const undone = { ...state.undone };
      for (const id of event.turnIds) undone[id] = true;
      return { ...state, undone };
    },
    'turns.redone': (state, event) => {
      const undone = { ...state.undone };
      for (const id of event.turnIds) delete undone[id];
      return { ...state, undone };
    },
  },
};

export const useHistory = create<HistoryState>()(() => historySlice.empty);

/** A compaction in the transcript: running, then compacted (with its handoff note), failed or stopped. */
export interface CompactionItem extends Row {
  kind: 'compaction';
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

const compactionItemId = (compactionId: string) => `compaction:${compactionId}`;

function compactionStarted(event: SessionEventOf<'compaction.started'>): CompactionItem {
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

function compactionEnded(item: CompactionItem | undefined, event: SessionEventOf<'compaction.ended'>): CompactionItem {
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

/** Compaction cards and undo notices; undone turns keep their rows (the view greys them). */
export const historyRows: RowHandlers = {
  'compaction.started': (rows, event) => {
    const id = compactionItemId(event.compactionId);
    return appendRow(removeRow(rows, id), compactionStarted(event));
  },
  'compaction.ended': (rows, event) => {
    const index = indexFromEnd(rows, compactionItemId(event.compactionId));
    const existing = rows[index];
    return existing?.kind === 'compaction'
      ? replaceAt<Row>(rows, index, compactionEnded(existing as CompactionItem, event))
      : appendRow<Row>(rows, compactionEnded(undefined, event));
  },
  // A rewind's undo is told by the rewind's own notice (files put back, turns taken out), replaced when it is undone.
  'turns.undone': (rows, event) => (event.byRewind ? rows : appendRow<Row>(rows, infoNotice(`undo${event.seq}`, undoNotice(event.turnIds.length)))),
};
