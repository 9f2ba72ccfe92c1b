import { create } from 'zustand';
import type { PermissionMode, PlanState } from '#protocol';
import { type Row, type RowHandlers, appendRow, infoNotice } from './rows';
import type { SessionSlice } from './session-slice';

/** The open session's permission mode and plan mode. */
export interface ModesState {
  /** Null until the session's mode changes: the default mode (from the rules files) applies. */
  permission: PermissionMode | null;
  plan: PlanState | null;
}

export const modesSlice: SessionSlice<ModesState> = {
  empty: { permission: null, plan: null },
  on: {
    'permission.mode.changed': (state, event) => ({ ...state, permission: event.mode }),
    'plan.mode.changed': (state, event) => ({ ...state, plan: event.plan }),
  },
};

const MODE_LABELS = { ask: 'Ask', 'accept-edits': 'Accept edits', yolo: 'Yolo' } as const;

/** Each switch also leaves a line in the transcript. */
export const modeRows: RowHandlers = {
  'permission.mode.changed': (rows, event) =>
    appendRow<Row>(rows, infoNotice(`mode${event.seq}`, `Permission mode: ${MODE_LABELS[event.mode]}${event.reason ? ` — ${event.reason}` : ''}`)),
  'plan.mode.changed': (rows, event) => appendRow<Row>(rows, infoNotice(`plan${event.seq}`, event.plan.active ? 'Plan mode on' : 'Plan mode off')),
};

export const useModes = create<ModesState>()(() => modesSlice.empty);
