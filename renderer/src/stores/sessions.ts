import { create } from 'zustand';
import type { SessionEvent, SessionSummary } from '#protocol';
import { useApprovals } from './approvals';
import { applyEarlierState, applyToOpenSession, resetOpenSession } from './open-session';
import { dropEarlierTurns, useTranscript } from './transcript';

interface SessionsState {
  sessions: SessionSummary[];
  currentId: string | null;
  /** Set while a session is being opened; live events wait in `pending` until its replay lands. */
  loading: boolean;
  pending: SessionEvent[];
  /** The open session's last event applied: events at or below it are not applied again, and a reopen asks for what came after. */
  lastSeq: number;
  /** Where the open session's earlier events begin that are not shown yet (the cursor for the next page up); null: all are shown. */
  before: number | null;
  problems: string[];
  setSessions(sessions: SessionSummary[]): void;
  upsertSession(session: SessionSummary): void;
  removeSession(id: string): void;
  /** The window shows no session (a new one is being made): commands wait for it instead of reaching the last one. */
  leave(): void;
  beginOpen(id: string): void;
  /** A replay (or catch-up) arrived; with `reset`, `tail` says where the earlier pages begin and what state they left. */
  finishOpen(id: string, events: SessionEvent[], reset: boolean, problems: string[], tail?: EarlierTurns): void;
  /** An earlier page arrived (the page before cursor `before`): it goes on top; `next` is the cursor for the page before it. */
  shownEarlier(id: string, before: number, next: number | null): boolean;
  /** The rows of the turns before seq `before` left the window: scrolling up pages them back in. */
  droppedEarlier(id: string, before: number): void;
  /** Live session events, of any session. */
  apply(events: SessionEvent[]): void;
}

/** What openSession says of the turns before its tail (see the protocol). */
export interface EarlierTurns {
  before?: number | null | undefined;
  earlier?: SessionEvent[] | undefined;
}

function sortSessions(list: SessionSummary[]): SessionSummary[] {
  return list.slice().sort((a, b) => b.updatedAt - a.updatedAt);
}

/** Events above `lastSeq`, each once, so a replay and live events can overlap. */
function unseen(events: readonly SessionEvent[], lastSeq: number): { fresh: SessionEvent[]; lastSeq: number } {
  const fresh: SessionEvent[] = [];
  let last = lastSeq;
  for (const event of events) {
    if (event.seq <= last) continue;
    fresh.push(event);
    last = event.seq;
  }
  return { fresh, lastSeq: last };
}

/** The host's sessions and the one open in this window: it opens, replays, then follows live events. */
export const useSessions = create<SessionsState>()((set, get) => {
  /** Apply the open session's events to every domain. */
  const applyOpen = (id: string, events: readonly SessionEvent[], from: number) => {
    const { fresh, lastSeq } = unseen(events, from);
    applyToOpenSession(id, fresh);
    return lastSeq;
  };
  return {
    sessions: [],
    currentId: null,
    loading: false,
    pending: [],
    lastSeq: 0,
    before: null,
    problems: [],
    setSessions: (sessions) => set({ sessions: sortSessions(sessions) }),
    upsertSession: (session) => set((s) => ({ sessions: sortSessions([session, ...s.sessions.filter((x) => x.id !== session.id)]) })),
    removeSession: (id) => {
      const closing = get().currentId === id;
      set((s) => ({ sessions: s.sessions.filter((x) => x.id !== id) }));
      if (closing) get().leave();
      useApprovals.getState().clear(id);
    },
    leave: () => {
      if (get().currentId === null) return;
      set({ currentId: null, loading: false, pending: [], lastSeq: 0, before: null, problems: [] });
      resetOpenSession(null);
    },
    beginOpen: (id) => {
      if (get().currentId === id) {
        set({ loading: true, pending: [] });
        return;
      }
      set({ currentId: id, loading: true, pending: [], lastSeq: 0, before: null, problems: [] });
      resetOpenSession(null);
    },
    finishOpen: (id, events, reset, problems, { before, earlier } = {}) => {
      const s = get();
      if (s.currentId !== id) return;
      // From the first event, the replay rebuilds everything: what the domains held for this session goes.
      const from = reset ? 0 : s.lastSeq;
      if (from === 0) {
        resetOpenSession(id);
        // The state the turns before the tail left (modes, todo, usage…); their rows come page by page.
        if (earlier?.length) applyEarlierState(id, earlier);
      }
      const lastSeq = applyOpen(id, [...events, ...s.pending], from);
      set({ lastSeq, loading: false, pending: [], problems, ...(from === 0 ? { before: before ?? null } : {}) });
    },
    shownEarlier: (id, before, next) => {
      const s = get();
      if (s.currentId !== id || s.before !== before) return false;
      set({ before: next });
      return true;
    },
    droppedEarlier: (id, before) => {
      const s = get();
      if (s.currentId === id && (s.before === null || before > s.before)) set({ before });
    },
    apply: (events) => {
      const { currentId, loading, lastSeq } = get();
      const mine: SessionEvent[] = [];
      const others = new Map<string, SessionEvent[]>();
      for (const event of events) {
        if (event.sessionId === currentId) mine.push(event);
        else {
          const list = others.get(event.sessionId);
          if (list) list.push(event);
          else others.set(event.sessionId, [event]);
        }
      }
      // Other sessions are not replayed here: only what waits for the user in them is followed.
      for (const [sessionId, list] of others) useApprovals.getState().apply(sessionId, list);
      if (!mine.length || !currentId) return;
      if (loading) set((s) => ({ pending: [...s.pending, ...mine] }));
      else set({ lastSeq: applyOpen(currentId, mine, lastSeq) });
    },
  };
});

/**
 * A window that follows a long live session keeps the rows of its last KEEP_TURNS turns once it holds
 * TRIM_AT: its memory stays flat however long the session runs. The dropped turns come back page by page
 * when the user scrolls up, as after opening the session.
 */
export const KEEP_TURNS = 40;
const TRIM_AT = 60;

/** Called while the view follows the newest rows (never while the user reads further up: rows above them would move). */
export function letGoOfEarlierTurns(): void {
  const { currentId, loading } = useSessions.getState();
  if (!currentId || loading) return;
  let prompts = 0;
  for (const item of useTranscript.getState().items) if (item.kind === 'user') prompts++;
  if (prompts <= TRIM_AT) return;
  const before = dropEarlierTurns(KEEP_TURNS);
  if (before !== null) useSessions.getState().droppedEarlier(currentId, before);
}
