import type { SessionEventType } from '../schemas/events';

/**
 * A window opens a session at its tail and reads earlier turns page by page as the user scrolls up.
 * These events only make the conversation's rows (and carry its bulk: answers, tool output): a window
 * gets them with the page they belong to. Every other event of the earlier pages carries state a window
 * needs at once (the mode, the todo list, usage, checkpoints, approvals), so it comes with the tail in
 * `openSession`'s `earlier`.
 */
export const PAGED_EVENT_TYPES: ReadonlySet<SessionEventType> = new Set<SessionEventType>([
  'session.updated',
  'step.started',
  'step.retrying',
  'step.ended',
  'assistant.delta',
  'thinking.delta',
  'step.note',
  'tool.call.started',
  'tool.call.progress',
  'tool.call.result',
  'error',
  'skill.activated',
  'hook.ran',
  'steer.delivered',
]);

/** Turns in the tail a window gets when it opens a session (enough to fill a tall screen, with a margin). */
export const TAIL_TURNS = 12;
/** Turns per earlier page. */
export const PAGE_TURNS = 20;
