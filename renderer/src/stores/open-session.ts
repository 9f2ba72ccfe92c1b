import type { StoreApi } from 'zustand';
import type { SessionEvent } from '#protocol';
import { agentsSlice, useAgents } from './agents';
import { useApprovals } from './approvals';
import { checkpointsSlice, useCheckpoints } from './checkpoints';
import { goalSlice, useGoal } from './goal';
import { historySlice, useHistory } from './history';
import { meterSlice, useMeter } from './meter';
import { modesSlice, useModes } from './modes';
import { queueSlice, useQueue } from './queue';
import { type SessionSlice, reduce } from './session-slice';
import { todoSlice, useTodo } from './todo';
import { transcriptSlice, useTranscript } from './transcript';

interface OpenSessionStore {
  reset(): void;
  apply(events: readonly SessionEvent[]): void;
}

/** A store that holds one slice's state for the open session; it is set once per batch, and only when the slice changed. */
function sliceStore<S>(slice: SessionSlice<S>, store: StoreApi<S>): OpenSessionStore {
  return {
    reset: () => store.setState(slice.empty, true),
    apply: (events) => {
      const before = store.getState();
      const after = reduce(slice, before, events);
      if (after !== before) store.setState(after, true);
    },
  };
}

const transcriptStore = sliceStore(transcriptSlice, useTranscript);
/** The domains that hold state rather than rows: they see the events before the tail at once. */
const stateStores: readonly OpenSessionStore[] = [
  sliceStore(modesSlice, useModes),
  sliceStore(todoSlice, useTodo),
  sliceStore(goalSlice, useGoal),
  sliceStore(historySlice, useHistory),
  sliceStore(checkpointsSlice, useCheckpoints),
  sliceStore(meterSlice, useMeter),
  sliceStore(agentsSlice, useAgents),
  sliceStore(queueSlice, useQueue),
];
/** Every domain rebuilt from the open session's events. (Approvals are kept for every session: approvals.ts.) */
const stores: readonly OpenSessionStore[] = [transcriptStore, ...stateStores];

/** Forget what the domains show for the open session (another opens, or its events replay from the first). */
export function resetOpenSession(sessionId: string | null): void {
  for (const store of stores) store.reset();
  if (sessionId) useApprovals.getState().clear(sessionId);
}

/** The open session's events, in order and each once, to every domain. */
export function applyToOpenSession(sessionId: string, events: readonly SessionEvent[]): void {
  if (!events.length) return;
  for (const store of stores) store.apply(events);
  useApprovals.getState().apply(sessionId, events);
}

/**
 * The events before the open session's tail that carry state (openSession's `earlier`): every domain but
 * the transcript, whose rows for those turns arrive page by page (prependEarlierPage).
 */
export function applyEarlierState(sessionId: string, events: readonly SessionEvent[]): void {
  if (!events.length) return;
  for (const store of stateStores) store.apply(events);
  useApprovals.getState().apply(sessionId, events);
}
