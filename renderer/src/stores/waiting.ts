import { create } from 'zustand';
import type { SessionEvent } from '../../../protocol';

type Waiting = Array<{ id: string; turnId: string }>;

interface WaitingState {
  /** Approvals and questions waiting for the user, per session (as listed by the host, then kept live by events). */
  bySession: Record<string, Waiting>;
  apply(events: readonly SessionEvent[]): void;
  /** What the host says is waiting now (from the session list, after a load or reconnect). */
  reset(sessions: ReadonlyArray<{ id: string; waiting?: Waiting }>): void;
}

function next(list: Waiting, event: SessionEvent): Waiting {
  switch (event.type) {
    case 'approval.requested':
    case 'question.asked':
      return [...list, { id: event.requestId, turnId: event.turnId }];
    case 'approval.resolved':
    case 'question.answered':
      return list.filter((w) => w.id !== event.requestId);
    case 'turn.ended':
      return list.filter((w) => w.turnId !== event.turnId);
    default:
      return list;
  }
}

/** Which sessions wait for the user, so the sidebar can point at ones that are not open. */
export const useWaiting = create<WaitingState>()((set) => ({
  bySession: {},
  reset: (sessions) => set({ bySession: Object.fromEntries(sessions.flatMap((s) => (s.waiting?.length ? [[s.id, s.waiting]] : []))) }),
  apply: (events) =>
    set((s) => {
      let bySession = s.bySession;
      for (const event of events) {
        const before = bySession[event.sessionId] ?? [];
        const after = next(before, event);
        if (after !== before) bySession = { ...bySession, [event.sessionId]: after };
      }
      return bySession === s.bySession ? s : { bySession };
    }),
}));
