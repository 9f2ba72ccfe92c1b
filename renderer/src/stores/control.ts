import type { Goal, PermissionMode, PlanState, Question, SessionEvent, SessionEventOf, TodoItem } from '../../../protocol';

export type PendingApproval = Omit<SessionEventOf<'approval.requested'>, 'type' | 'sessionId' | 'seq'>;
export type PendingQuestion = Omit<SessionEventOf<'question.asked'>, 'type' | 'sessionId' | 'seq'> & { questions: Question[] };

/** What the user controls in a session, rebuilt from its events (so it survives reloads and resumes). */
export interface ControlState {
  /** Null until the session's mode changes: the default mode (from the rules files) applies. */
  mode: PermissionMode | null;
  plan: PlanState | null;
  todos: TodoItem[];
  goal: Goal | null;
  /** Waiting for the user, oldest first. */
  approvals: PendingApproval[];
  questions: PendingQuestion[];
}

export const emptyControl: ControlState = { mode: null, plan: null, todos: [], goal: null, approvals: [], questions: [] };

/** Apply one session event to the control state; events that do not concern it return it unchanged. */
export function applyControl(state: ControlState, event: SessionEvent): ControlState {
  switch (event.type) {
    case 'permission.mode.changed':
      return { ...state, mode: event.mode };
    case 'plan.mode.changed':
      return { ...state, plan: event.plan };
    case 'todo.updated':
      return { ...state, todos: event.items };
    case 'goal.updated':
      return { ...state, goal: event.goal };
    case 'approval.requested': {
      const { type: _t, sessionId: _s, seq: _q, ...approval } = event;
      return { ...state, approvals: [...state.approvals.filter((a) => a.requestId !== event.requestId), approval] };
    }
    case 'approval.resolved':
      return { ...state, approvals: state.approvals.filter((a) => a.requestId !== event.requestId) };
    case 'question.asked': {
      const { type: _t, sessionId: _s, seq: _q, ...question } = event;
      return { ...state, questions: [...state.questions.filter((q) => q.requestId !== event.requestId), question] };
    }
    case 'question.answered':
      return { ...state, questions: state.questions.filter((q) => q.requestId !== event.requestId) };
    case 'turn.ended':
      // Whatever that turn was waiting for can no longer be answered (it stopped, or Deft restarted).
      if (!state.approvals.some((a) => a.turnId === event.turnId) && !state.questions.some((q) => q.turnId === event.turnId)) return state;
      return { ...state, approvals: state.approvals.filter((a) => a.turnId !== event.turnId), questions: state.questions.filter((q) => q.turnId !== event.turnId) };
    default:
      return state;
  }
}
