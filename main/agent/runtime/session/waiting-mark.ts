import type { AppEvent, DeftEvent } from '#protocol';
import { markWaiting } from '#infra/sessions/running';
import type { Session } from '#infra/sessions/session';

/** The events after which what a session waits for has changed (the request is listed, or gone, when they are sent). */
const ASKS = new Set<string>([
  'approval.requested',
  'approval.resolved',
  'question.asked',
  'question.answered',
  'change.review.requested',
  'change.review.resolved',
]);

/**
 * A session says on disk whether it waits for the user, beside its running mark (infra/sessions/running.ts): a window
 * on another checkout of the repository — a worktree's, or the main checkout's — shows it as "waiting for you".
 */
export function noteWaiting(event: DeftEvent | AppEvent, session: (id: string) => Session | undefined, waitingFor: (id: string) => readonly unknown[]): void {
  if (!ASKS.has(event.type) || !('sessionId' in event)) return;
  const found = session(event.sessionId);
  if (!found) return;
  markWaiting(found.dir, waitingFor(event.sessionId).length > 0);
}
