import { type DeftEvent, ELSEWHERE_LIMIT, type ElsewhereRequest, appEventSchema, worktreeSchemas } from '#protocol';

/** What the board needs of a core: its events. */
export interface WatchedCore {
  onEvent(listener: (event: DeftEvent) => void): () => void;
}

/** Which core: a worktree's (name and branch), or the main checkout's (null). */
export type CoreKey = { name: string; branch: string } | null;

const keyOf = (core: CoreKey) => core?.name ?? '';
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * What waits for the user in each of a host's cores (the web host's main checkout and its worktrees; the desktop
 * app's the same), from their own events: an approval or a plan review (`approval.requested` until
 * `approval.resolved`), a question, a change review. A turn that ends, or a session deleted, takes its requests with
 * it (a resolution missed cannot leave one behind). Each page is told what waits in the cores it does NOT show
 * (`requests.elsewhere`, zod-checked as every event): a badge, a notification, a click there.
 */
export class WaitingBoard {
  /** Per core (by key), request id → the request. */
  private readonly waiting = new Map<string, Map<string, ElsewhereRequest>>();
  /** Per core, session id → its title, from the sessions' own `session.updated`. */
  private readonly titles = new Map<string, Map<string, string>>();
  private readonly watched = new Map<string, () => void>();
  private readonly listeners = new Set<() => void>();

  /** Follow `core`'s events as the core `key` (a core already followed under that key is let go of first). */
  watch(key: CoreKey, core: WatchedCore): () => void {
    const id = keyOf(key);
    this.forget(key);
    const requests = new Map<string, ElsewhereRequest>();
    const titles = new Map<string, string>();
    this.waiting.set(id, requests);
    this.titles.set(id, titles);
    const unsubscribe = core.onEvent((event) => {
      if (this.waiting.get(id) !== requests) return;
      if (this.hear(key, requests, titles, event)) this.changed();
    });
    const stop = () => {
      unsubscribe();
      if (this.waiting.get(id) !== requests) return;
      this.waiting.delete(id);
      this.titles.delete(id);
      this.watched.delete(id);
      if (requests.size) this.changed();
    };
    this.watched.set(id, stop);
    return stop;
  }

  /** Stop following the core `key` (closed): what waited there is gone with it. */
  forget(key: CoreKey): void {
    this.watched.get(keyOf(key))?.();
  }

  /** Every core followed is let go of (the host now serves another folder). */
  forgetAll(): void {
    for (const stop of [...this.watched.values()]) stop();
  }

  /** Told after anything waiting came or went, in any core. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The `requests.elsewhere` event for a page that shows core `shown`: what waits everywhere else, oldest first. */
  elsewhere(shown: CoreKey): Extract<DeftEvent, { type: 'requests.elsewhere' }> {
    const others = [...this.waiting.entries()].filter(([id]) => id !== keyOf(shown)).flatMap(([, requests]) => [...requests.values()]);
    others.sort((a, b) => a.at - b.at);
    // Checked as every protocol message is: a page is told nothing the schema does not allow.
    return appEventSchema().parse({ type: 'requests.elsewhere', requests: others.slice(0, ELSEWHERE_LIMIT), total: others.length }) as Extract<
      DeftEvent,
      { type: 'requests.elsewhere' }
    >;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // One page's failure is not another's.
      }
    }
  }

  /** Note what `event` changes; true when the requests waiting there changed. */
  private hear(core: CoreKey, requests: Map<string, ElsewhereRequest>, titles: Map<string, string>, event: DeftEvent): boolean {
    const add = (sessionId: string, requestId: string, kind: ElsewhereRequest['kind'], summary: string, at: number) => {
      const request = worktreeSchemas().ElsewhereRequest.safeParse({
        worktree: core,
        sessionId: cut(sessionId, 200),
        title: cut(titles.get(sessionId) ?? 'A session', 300),
        requestId: cut(requestId, 200),
        kind,
        summary: cut(summary.replace(/\s+/g, ' ').trim(), 500),
        at,
      });
      if (!request.success) return false;
      requests.set(requestId, request.data);
      return true;
    };
    const dropSession = (sessionId: string) => {
      let dropped = false;
      for (const [id, request] of requests) {
        if (request.sessionId === sessionId) dropped = requests.delete(id) || dropped;
      }
      return dropped;
    };
    switch (event.type) {
      case 'session.updated': {
        titles.set(event.sessionId, event.session.title);
        let renamed = false;
        for (const request of requests.values()) {
          if (request.sessionId === event.sessionId && request.title !== cut(event.session.title, 300)) {
            request.title = cut(event.session.title, 300);
            renamed = true;
          }
        }
        return renamed;
      }
      case 'approval.requested':
        return add(
          event.sessionId,
          event.requestId,
          event.kind === 'plan_review' ? 'plan' : 'approval',
          event.kind === 'plan_review' ? 'A plan waits for your review' : `${event.toolName}: ${event.description}`,
          event.at,
        );
      case 'question.asked':
        return add(event.sessionId, event.requestId, 'question', event.questions[0]?.question ?? 'A question', event.at);
      case 'change.review.requested':
        return add(event.sessionId, event.request.requestId, 'review', `Review the change to ${event.request.path}`, event.at);
      case 'approval.resolved':
      case 'question.answered':
      case 'change.review.resolved':
        return requests.delete(event.requestId);
      case 'turn.ended':
        return dropSession(event.sessionId);
      case 'session.deleted':
        titles.delete(event.sessionId);
        return dropSession(event.sessionId);
      default:
        return false;
    }
  }
}
