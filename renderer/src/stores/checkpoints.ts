import { create } from 'zustand';
import type { ChangeReviewRequest, RewindResult, RewindScope } from '#protocol';
import { type Row, type RowHandlers, appendRow, indexFromEnd, replaceAt } from './rows';
import type { SessionSlice } from './session-slice';

/** Checkpoints in the open session: the rewind that can still be undone, and the changes waiting for review (review mode). */
export interface CheckpointsState {
  undoable: { rewindId: string; scope: RewindScope } | null;
  reviews: ChangeReviewRequest[];
}

export const checkpointsSlice: SessionSlice<CheckpointsState> = {
  empty: { undoable: null, reviews: [] },
  on: {
    'rewind.done': (state, { result }) => ({ ...state, undoable: { rewindId: result.rewindId, scope: result.scope } }),
    'rewind.undone': (state) => (state.undoable ? { ...state, undoable: null } : state),
    // Once a turn has run after it, a rewind can no longer be undone.
    'turn.started': (state) => (state.undoable ? { ...state, undoable: null } : state),
    'change.review.requested': (state, { request }) => ({ ...state, reviews: [...state.reviews.filter((r) => r.requestId !== request.requestId), request] }),
    'change.review.resolved': (state, { requestId }) => ({ ...state, reviews: state.reviews.filter((r) => r.requestId !== requestId) }),
    'turn.ended': (state, { turnId }) =>
      state.reviews.some((r) => r.turnId === turnId) ? { ...state, reviews: state.reviews.filter((r) => r.turnId !== turnId) } : state,
  },
};

export const useCheckpoints = create<CheckpointsState>()(() => checkpointsSlice.empty);

/** A rewind in the transcript: what it did, and whether it was undone. */
export interface RewindItem extends Row {
  kind: 'rewind';
  result: RewindResult;
  undone: boolean;
}

/** Rewind notices (the changed-files rows of turns come from changes.ts). */
export const rewindRows: RowHandlers = {
  'rewind.done': (rows, { result }) => {
    const item: RewindItem = { kind: 'rewind', id: `rewind:${result.rewindId}`, result, undone: false };
    return appendRow<Row>(rows, item);
  },
  'rewind.undone': (rows, { rewindId }) => {
    const index = indexFromEnd(rows, `rewind:${rewindId}`);
    if (index < 0) return rows;
    const item: RewindItem = { ...(rows[index] as RewindItem), undone: true };
    return replaceAt<Row>(rows, index, item);
  },
};

/** Which checkpoint dialog is open: a rewind or a fork (for a turn), the /rewind picker, or the review pane (of a turn, or the session). */
export type CheckpointDialog =
  | { kind: 'rewind'; turnId: string; text: string }
  | { kind: 'fork'; turnId: string; text: string }
  | { kind: 'picker' }
  | { kind: 'review'; turnId?: string; path?: string }
  | null;

export const useCheckpointDialog = create<{ dialog: CheckpointDialog; show(dialog: CheckpointDialog): void }>()((set) => ({
  dialog: null,
  show: (dialog) => set({ dialog }),
}));
