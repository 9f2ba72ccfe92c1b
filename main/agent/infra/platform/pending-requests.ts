import { randomUUID } from 'node:crypto';

interface Entry<R, A> {
  id: string;
  sessionId: string;
  request: R;
  settle: (answer: A | 'cancelled') => void;
}

/**
 * Requests waiting for the user (approvals, questions), in the order they were made. Each one settles
 * exactly once: with the user's answer, or as 'cancelled' when its turn stops or the core closes.
 */
export class PendingRequests<R, A> {
  private readonly entries = new Map<string, Entry<R, A>>();

  constructor(private readonly prefix: string) {}

  /** Register a request; `onOpen` runs with its id before anyone can answer it. */
  open(sessionId: string, request: R, signal: AbortSignal | undefined, onOpen: (id: string) => void): Promise<{ id: string; answer: A | 'cancelled' }> {
    const id = `${this.prefix}-${randomUUID().slice(0, 8)}`;
    return new Promise((resolve) => {
      const abort = () => {
        if (this.entries.delete(id)) resolve({ id, answer: 'cancelled' });
      };
      this.entries.set(id, {
        id,
        sessionId,
        request,
        settle: (answer) => {
          signal?.removeEventListener('abort', abort);
          resolve({ id, answer });
        },
      });
      onOpen(id);
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
    });
  }

  get(sessionId: string, id: string): R | undefined {
    const entry = this.entries.get(id);
    return entry && entry.sessionId === sessionId ? entry.request : undefined;
  }

  /** Settle a request; false when it is not pending (already answered, cancelled, or unknown). */
  settle(sessionId: string, id: string, answer: A | 'cancelled'): boolean {
    const entry = this.entries.get(id);
    if (!entry || entry.sessionId !== sessionId) return false;
    this.entries.delete(id);
    entry.settle(answer);
    return true;
  }

  /** Pending requests of a session, oldest first. */
  list(sessionId: string): Array<{ id: string; request: R }> {
    return [...this.entries.values()].filter((e) => e.sessionId === sessionId).map((e) => ({ id: e.id, request: e.request }));
  }

  /** Settle everything still pending (the core is closing). */
  cancelAll(): void {
    for (const entry of [...this.entries.values()]) this.settle(entry.sessionId, entry.id, 'cancelled');
  }
}
