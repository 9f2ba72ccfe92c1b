import { create } from 'zustand';
import type { Goal } from '#protocol';
import type { SessionSlice } from './session-slice';

/** The open session's goal, if it has one, and what an active goal has used since the core last said. */
export interface GoalState {
  goal: Goal | null;
  /** When the goal was last reported (its time used runs on from here while it is active). */
  reportedAt: number;
  /** Tokens the session used since then (counted toward an active goal). */
  tokensSince: number;
}

export const goalSlice: SessionSlice<GoalState> = {
  empty: { goal: null, reportedAt: 0, tokensSince: 0 },
  on: {
    'goal.updated': (_state, event) => ({ goal: event.goal, reportedAt: event.at, tokensSince: 0 }),
    usage: (state, event) =>
      state.goal?.status === 'active' ? { ...state, tokensSince: state.tokensSince + event.step.inputTokens + event.step.outputTokens } : state,
  },
};

export const useGoal = create<GoalState>()(() => goalSlice.empty);
