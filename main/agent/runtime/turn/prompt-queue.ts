import { randomBytes } from 'node:crypto';
import { CommandError } from '#contract/errors';
import type { Session } from '#infra/sessions/session';

/** A message typed while a turn ran: it waits for the next turn, or (`steer`) for the running turn's next step. */
export interface QueuedPrompt {
  queueId: string;
  text: string;
  steer: boolean;
}

function newQueueId(): string {
  // 8 characters of [0-9a-z], as the protocol's QueueId wants.
  return `q-${[...randomBytes(8)].map((b) => (b % 36).toString(36)).join('')}`;
}

/**
 * A session's waiting messages. Every change is an event in the session's log, so a window shows the queue and a
 * session loaded again (after a crash, or let go of while idle) finds it as it was.
 */
export class PromptQueue {
  private readonly items: QueuedPrompt[];

  constructor(private readonly session: Session) {
    this.items = session.waitingAtLoad.map((item) => ({ ...item }));
  }

  get waiting(): readonly QueuedPrompt[] {
    return this.items;
  }

  add(text: string, steer: boolean): QueuedPrompt {
    const item = { queueId: newQueueId(), text, steer };
    this.items.push(item);
    this.session.emit({ type: 'prompt.queued', ...item });
    return item;
  }

  edit(queueId: string, change: { text?: string; steer?: true }): void {
    const item = this.find(queueId);
    if (change.text !== undefined) item.text = change.text;
    if (change.steer) item.steer = true;
    this.session.emit({ type: 'prompt.queue.edited', ...item });
  }

  remove(queueId: string): void {
    const item = this.find(queueId);
    this.items.splice(this.items.indexOf(item), 1);
    this.session.emit({ type: 'prompt.queue.removed', queueId, reason: 'removed' });
  }

  /** The steers waiting, taken out of the queue and announced as delivered into `turnId` before `step`. */
  deliverSteers(turnId: string, step: number): string[] {
    const steers = this.items.filter((item) => item.steer);
    if (!steers.length) return [];
    for (const item of steers) {
      this.items.splice(this.items.indexOf(item), 1);
      this.session.emit({ type: 'prompt.queue.removed', queueId: item.queueId, reason: 'delivered', turnId });
      this.session.emit({ type: 'steer.delivered', turnId, step, queueId: item.queueId, text: item.text });
    }
    return steers.map((item) => item.text);
  }

  hasSteers(): boolean {
    return this.items.some((item) => item.steer);
  }

  /** The message a new turn should carry (`queueId`, or the first waiting), taken out of the queue; null when none waits. */
  take(queueId?: string): QueuedPrompt | null {
    const item = queueId ? this.find(queueId) : this.items[0];
    if (!item) return null;
    this.items.splice(this.items.indexOf(item), 1);
    return item;
  }

  /** Announce that `item` (taken) started `turnId`. */
  sent(item: QueuedPrompt, turnId: string): void {
    this.session.emit({ type: 'prompt.queue.removed', queueId: item.queueId, reason: 'sent', turnId });
  }

  /** Put a taken message back at the front (its turn could not start). */
  putBack(item: QueuedPrompt): void {
    this.items.unshift(item);
  }

  private find(queueId: string): QueuedPrompt {
    const item = this.items.find((i) => i.queueId === queueId);
    if (!item) throw new CommandError('not_found', 'That message is no longer waiting: it was sent, delivered or removed.');
    return item;
  }
}
