import { create } from 'zustand';
import type { Question, SessionEvent, SessionEventOf, SessionSummary } from '#protocol';
import { type SessionSlice, reduce } from './session-slice';

export type PendingApproval = Omit<SessionEventOf<'approval.requested'>, 'type' | 'sessionId' | 'seq'>;
export type PendingQuestion = Omit<SessionEventOf<'question.asked'>, 'type' | 'sessionId' | 'seq'> & { questions: Question[] };
/** A request known only from the host's session list: enough to say that the session waits. */
export type ListedRequest = NonNullable<SessionSummary['waiting']>[number];

/** What waits for the user in one session, oldest first. */
export interface SessionRequests {
  approvals: PendingApproval[];
  questions: PendingQuestion[];
  /** Known from the host's list only, in a session whose events this window has not seen. */
  listed: ListedRequest[];
}

const without = <T extends { requestId: string }>(list: T[], id: string) => list.filter((r) => r.requestId !== id);
const unlisted = (list: ListedRequest[], id: string) => (list.some((r) => r.id === id) ? list.filter((r) => r.id !== id) : list);

/** Approvals and questions of one session, from its events. */
export const requestsSlice: SessionSlice<SessionRequests> = {
  empty: { approvals: [], questions: [], listed: [] },
  on: {
    'approval.requested': (state, event) => {
      const { type: _t, sessionId: _s, seq: _q, ...approval } = event;
      return { ...state, approvals: [...without(state.approvals, event.requestId), approval], listed: unlisted(state.listed, event.requestId) };
    },
    'approval.resolved': (state, event) => ({
      ...state,
      approvals: without(state.approvals, event.requestId),
      listed: unlisted(state.listed, event.requestId),
    }),
    'question.asked': (state, event) => {
      const { type: _t, sessionId: _s, seq: _q, ...question } = event;
      return { ...state, questions: [...without(state.questions, event.requestId), question], listed: unlisted(state.listed, event.requestId) };
    },
    'question.answered': (state, event) => ({
      ...state,
      questions: without(state.questions, event.requestId),
      listed: unlisted(state.listed, event.requestId),
    }),
    'turn.ended': (state, { turnId }) => {
      // Whatever that turn was waiting for can no longer be answered (it stopped, or Deft restarted).
      const mine = (r: { turnId: string }) => r.turnId === turnId;
      if (!state.approvals.some(mine) && !state.questions.some(mine) && !state.listed.some(mine)) return state;
      const other = (r: { turnId: string }) => r.turnId !== turnId;
      return { approvals: state.approvals.filter(other), questions: state.questions.filter(other), listed: state.listed.filter(other) };
    },
  },
};

export const waitingCount = (requests: SessionRequests | undefined): number =>
  requests ? requests.approvals.length + requests.questions.length + requests.listed.length : 0;

interface ApprovalsState {
  /** Per session: the open one (from its replay and live events), the others (from the host's list and live events). */
  bySession: Readonly<Record<string, SessionRequests>>;
  /** Events of one session, in order (the open session's already deduplicated by seq). */
  apply(sessionId: string, events: readonly SessionEvent[]): void;
  /** Start a session over from nothing (its events are about to be replayed from the first). */
  clear(sessionId: string): void;
  /**
   * What the host's session list says waits. The open session is left as it is: its own events keep it
   * current, and an older list must not drop a request that arrived after it was taken.
   */
  listed(sessions: readonly SessionSummary[], openId: string | null): void;
}

/** Approvals and questions waiting for the user — the one place they are tracked. */
export const useApprovals = create<ApprovalsState>()((set) => ({
  bySession: {},
  apply: (sessionId, events) =>
    set((s) => {
      const before = s.bySession[sessionId] ?? requestsSlice.empty;
      const after = reduce(requestsSlice, before, events);
      return after === before ? s : { bySession: { ...s.bySession, [sessionId]: after } };
    }),
  clear: (sessionId) =>
    set((s) => {
      if (!(sessionId in s.bySession)) return s;
      const { [sessionId]: _gone, ...rest } = s.bySession;
      return { bySession: rest };
    }),
  listed: (sessions, openId) =>
    set((s) => {
      const bySession: Record<string, SessionRequests> = {};
      for (const session of sessions) {
        if (session.id === openId) {
          const open = s.bySession[session.id];
          if (open) bySession[session.id] = open;
          continue;
        }
        const listed = session.waiting ?? [];
        if (!listed.length) continue;
        const ids = new Set(listed.map((r) => r.id));
        const known = s.bySession[session.id] ?? requestsSlice.empty;
        const approvals = known.approvals.filter((r) => ids.has(r.requestId));
        const questions = known.questions.filter((r) => ids.has(r.requestId));
        const full = new Set([...approvals, ...questions].map((r) => r.requestId));
        bySession[session.id] = { approvals, questions, listed: listed.filter((r) => !full.has(r.id)) };
      }
      return { bySession };
    }),
}));

const NONE: SessionRequests = requestsSlice.empty;

/** The requests of one session (a stable empty value when there are none). */
export const requestsOf = (state: Pick<ApprovalsState, 'bySession'>, sessionId: string | null): SessionRequests =>
  (sessionId !== null ? state.bySession[sessionId] : undefined) ?? NONE;
