import type { SessionEvent, SessionEventOf, SessionEventType } from '#protocol';

type Fields<T extends SessionEventType> = Omit<SessionEventOf<T>, 'type' | 'sessionId' | 'seq' | 'at'>;

/** For tests: a session's events, each with the next seq (typed, so a wrong shape does not compile); its time is its seq in seconds. */
export function eventsOf(sessionId = 's', firstSeq = 1) {
  let seq = firstSeq - 1;
  return <T extends SessionEventType>(type: T, fields: Fields<T>): SessionEvent =>
    ({ type, sessionId, seq: ++seq, at: seq * 1000, ...fields }) as unknown as SessionEvent;
}
