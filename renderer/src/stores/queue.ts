import { create } from 'zustand';
import { type Row, type RowHandlers, appendRow } from './rows';
import type { SessionSlice } from './session-slice';

/** A message typed while a turn ran, still waiting: for the next turn, or (`steer`) for the running turn's next step. */
export interface QueuedMessage {
  queueId: string;
  text: string;
  steer: boolean;
}

export interface QueueState {
  items: QueuedMessage[];
}

/** The open session's waiting messages, as the core's queue events say. */
export const queueSlice: SessionSlice<QueueState> = {
  empty: { items: [] },
  on: {
    'prompt.queued': (state, event) => ({
      items: [...state.items.filter((i) => i.queueId !== event.queueId), { queueId: event.queueId, text: event.text, steer: event.steer }],
    }),
    'prompt.queue.edited': (state, event) => ({
      items: state.items.map((i) => (i.queueId === event.queueId ? { ...i, text: event.text, steer: event.steer } : i)),
    }),
    'prompt.queue.removed': (state, event) => ({ items: state.items.filter((i) => i.queueId !== event.queueId) }),
  },
};

export const useQueue = create<QueueState>()(() => queueSlice.empty);

/** A steer where it reached the running turn: the model read it before step `step`. */
export interface SteerItem extends Row {
  kind: 'steer';
  turnId: string;
  step: number;
  text: string;
  at: number;
}

export const steerRows: RowHandlers = {
  'steer.delivered': (rows, event) =>
    appendRow<Row>(rows, { kind: 'steer', id: `steer:${event.queueId}`, turnId: event.turnId, step: event.step, text: event.text, at: event.at } as SteerItem),
};
