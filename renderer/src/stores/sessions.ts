import { create } from 'zustand';
import type { SessionEvent, SessionSummary } from '../../../protocol';
import { type Transcript, applyEvents, emptyTranscript } from './transcript';

interface SessionsState {
  sessions: SessionSummary[];
  currentId: string | null;
  transcript: Transcript;
  /** Set while a session is being opened; live events wait in `pending` until its replay lands. */
  loading: boolean;
  pending: SessionEvent[];
  problems: string[];
  setSessions(sessions: SessionSummary[]): void;
  upsertSession(session: SessionSummary): void;
  removeSession(id: string): void;
  beginOpen(id: string): void;
  finishOpen(id: string, events: SessionEvent[], reset: boolean, problems: string[]): void;
  apply(events: SessionEvent[]): void;
}

function sortSessions(list: SessionSummary[]): SessionSummary[] {
  return list.slice().sort((a, b) => b.updatedAt - a.updatedAt);
}

export const useSessions = create<SessionsState>()((set, get) => ({
  sessions: [],
  currentId: null,
  transcript: emptyTranscript,
  loading: false,
  pending: [],
  problems: [],
  setSessions: (sessions) => set({ sessions: sortSessions(sessions) }),
  upsertSession: (session) =>
    set((s) => ({ sessions: sortSessions([session, ...s.sessions.filter((x) => x.id !== session.id)]) })),
  removeSession: (id) =>
    set((s) => ({
      sessions: s.sessions.filter((x) => x.id !== id),
      ...(s.currentId === id ? { currentId: null, transcript: emptyTranscript, problems: [] } : {}),
    })),
  beginOpen: (id) =>
    set((s) => (s.currentId === id ? { loading: true, pending: [] } : { currentId: id, loading: true, pending: [], transcript: emptyTranscript, problems: [] })),
  finishOpen: (id, events, reset, problems) => {
    if (get().currentId !== id) return;
    set((s) => {
      const base = reset ? emptyTranscript : s.transcript;
      return { transcript: applyEvents(applyEvents(base, events), s.pending), loading: false, pending: [], problems };
    });
  },
  apply: (events) => {
    const { currentId, loading } = get();
    const mine = events.filter((e) => e.sessionId === currentId);
    if (!mine.length) return;
    if (loading) set((s) => ({ pending: [...s.pending, ...mine] }));
    else set((s) => ({ transcript: applyEvents(s.transcript, mine) }));
  },
}));
