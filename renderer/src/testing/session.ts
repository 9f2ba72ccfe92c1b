import { act } from '@testing-library/react';
import type { SessionEvent } from '#protocol';
import { useSessions } from '../stores/sessions';
import { eventsOf } from '../stores/test-events';

export const SESSION_ID = 'session-1';

/** Typed events of the test session, each with the next seq. */
export const sessionEvents = () => eventsOf(SESSION_ID);

/** Open the test session on these events, as the app does when it opens one (every store replays them). */
export function openSession(events: readonly SessionEvent[]): void {
  act(() => {
    useSessions.getState().beginOpen(SESSION_ID);
    useSessions.getState().finishOpen(SESSION_ID, [...events], true, []);
  });
}

/** Events of the open session arriving live. */
export function arrive(events: readonly SessionEvent[]): void {
  act(() => useSessions.getState().apply([...events]));
}
