import { z } from 'zod';

// Messages typed while a turn runs: queued for the next turn, or steered into the running one.

/** A queued message's id (q- and 8 characters). */
export const QueueId = z.string().regex(/^q-[0-9a-z]{8}$/, 'A queued message id looks like q-1a2b3c4d.');

/** The longest queued or steered message. */
const QueueText = z.string().trim().min(1, 'The message is empty.').max(100_000);

/** Why a message left the queue: sent as a turn, delivered into the running turn, or removed by the user. */
export const QueueRemoval = z.enum(['sent', 'delivered', 'removed']);

/** Shapes of the queue events, shared by events.ts (built with its schema, on first use). */
export const queueEventShapes = () =>
  ({
    /** A message waits: for the next turn, or (`steer`) for the running turn's next step. */
    'prompt.queued': { queueId: QueueId, text: z.string(), steer: z.boolean() },
    /** A waiting message was edited, or made a steer. */
    'prompt.queue.edited': { queueId: QueueId, text: z.string(), steer: z.boolean() },
    /** A message left the queue; `turnId` is the turn it started ('sent') or was delivered into ('delivered'). */
    'prompt.queue.removed': { queueId: QueueId, reason: QueueRemoval, turnId: z.string().optional() },
    /** A steer reached the running turn before step `step`: the model reads it as a user message there. */
    'steer.delivered': { turnId: z.string(), step: z.number().int(), queueId: QueueId, text: z.string() },
  }) as const;

const SessionRef = { sessionId: z.string().min(1) };

function command<I extends z.ZodType, O extends z.ZodType>(input: I, output: O) {
  return { input, output };
}

/** The queue's commands, spread into the command table: built with it, on first use (commandSchemas). */
export function queueCommands() {
  return {
    /**
     * Queue a message while a turn runs (`steer`: deliver it into the running turn at its next step instead). When no
     * turn runs it starts one at once and `turnId` says which.
     */
    queuePrompt: command(
      z.object({ ...SessionRef, text: QueueText, steer: z.boolean().optional() }).strict(),
      z.object({ queueId: QueueId.optional(), turnId: z.string().optional() }),
    ),
    /** Change a waiting message's text, or make it a steer (`steer: true`). Fails with not_found once it has left the queue. */
    editQueuedPrompt: command(
      z.object({ ...SessionRef, queueId: QueueId, text: QueueText.optional(), steer: z.literal(true).optional() }).strict(),
      z.object({ ok: z.literal(true) }),
    ),
    /** Take a waiting message out of the queue. Fails with not_found once it has left it. */
    removeQueuedPrompt: command(z.object({ ...SessionRef, queueId: QueueId }).strict(), z.object({ ok: z.literal(true) })),
    /** Send a waiting message now: as a steer while a turn runs, else as a new turn (`turnId`). */
    sendQueuedPrompt: command(z.object({ ...SessionRef, queueId: QueueId }).strict(), z.object({ turnId: z.string().optional() })),
  };
}
