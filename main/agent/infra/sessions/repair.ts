import type { SessionEvent } from '#protocol';
import type { ModelMessage } from '#contract/model';

/** What repairContext reads of a message (a message left on disk keeps this much: see Timeline). */
type MessageShape = { role: ModelMessage['role']; toolCalls?: ReadonlyArray<{ id: string; name: string }>; toolCallId?: string };

const STOPPED = 'The app stopped before this tool call finished; its result is unknown.';

/**
 * After a crash the history may end mid-step: an assistant message whose tool calls have no results.
 * Providers reject such a history, so the missing results are filled in.
 */
export function repairContext<T extends MessageShape>(context: readonly T[]): Array<T | ModelMessage> {
  const out: Array<T | ModelMessage> = [];
  for (let i = 0; i < context.length; i++) {
    const message = context[i]!;
    out.push(message);
    if (message.role !== 'assistant' || !message.toolCalls?.length) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < context.length && context[j]!.role === 'tool'; j++) answered.add((context[j] as { toolCallId: string }).toolCallId);
    const missing = message.toolCalls.filter((c) => !answered.has(c.id));
    if (!missing.length) continue;
    // Keep existing results right after the assistant message, then add the missing ones.
    let j = i + 1;
    while (j < context.length && context[j]!.role === 'tool') out.push(context[j++]!);
    for (const call of missing) out.push({ role: 'tool', toolCallId: call.id, toolName: call.name, content: STOPPED, isError: true });
    i = j - 1;
  }
  return out;
}

/** The turn that was running when the app stopped, if any (started but never ended). */
export function unfinishedTurn(events: readonly SessionEvent[]): string | null {
  let open: string | null = null;
  for (const event of events) {
    if (event.type === 'turn.started') open = event.turnId;
    else if (event.type === 'turn.ended' && event.turnId === open) open = null;
  }
  return open;
}

/** Compactions that were running when the app stopped (started but never ended). */
export function unfinishedCompactions(events: readonly SessionEvent[]): Array<Extract<SessionEvent, { type: 'compaction.started' }>> {
  const open = new Map<string, Extract<SessionEvent, { type: 'compaction.started' }>>();
  for (const event of events) {
    if (event.type === 'compaction.started') open.set(event.compactionId, event);
    else if (event.type === 'compaction.ended') open.delete(event.compactionId);
  }
  return [...open.values()];
}

/** A message typed while a turn ran that had not left the queue when the log was written last. */
export interface WaitingPrompt {
  queueId: string;
  text: string;
  steer: boolean;
}

/** The messages still queued at the end of the log, in order (they wait again when the session loads). */
export function waitingPrompts(events: readonly SessionEvent[]): WaitingPrompt[] {
  const waiting = new Map<string, WaitingPrompt>();
  for (const event of events) {
    if (event.type === 'prompt.queued' || event.type === 'prompt.queue.edited') {
      if (event.type === 'prompt.queued' || waiting.has(event.queueId))
        waiting.set(event.queueId, { queueId: event.queueId, text: event.text, steer: event.steer });
    } else if (event.type === 'prompt.queue.removed') waiting.delete(event.queueId);
  }
  return [...waiting.values()];
}
