import { create } from 'zustand';
import type { Goal } from '../../../protocol';
import type { SessionSlice } from './session-slice';

/** The open session's goal, if it has one. */
export interface GoalState {
  goal: Goal | null;
}

export const goalSlice: SessionSlice<GoalState> = {
  empty: { goal: null },
  on: { 'goal.updated': (_state, event) => ({ goal: event.goal }) },
};

export const useGoal = create<GoalState>()(() => goalSlice.empty);
