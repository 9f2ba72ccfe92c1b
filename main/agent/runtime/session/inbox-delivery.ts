import { type FSWatcher, watch as watchFolder } from 'node:fs';
import { claimInbox, ensureInbox, waitingSessions } from '#infra/sessions/inbox';
import { isRunningElsewhere } from '#infra/sessions/running';
import type { SessionStore } from '#infra/sessions/store';
import type { OpenSession } from './open-session';

export interface InboxDeliveryDeps {
  /** The workspace's mailbox folder (infra/sessions/inbox.ts). */
  dir: string;
  store: SessionStore;
  /** The open session (loaded if needed). */
  session: (id: string) => Promise<OpenSession>;
  /** Whether a turn of the session runs (or starts) in this core. */
  busyHere: (id: string) => boolean;
  /** Start the next waiting message as a turn if the session is idle here. */
  sendQueued: (open: OpenSession) => Promise<unknown>;
  /** `all`: every session of the workspace (a window); `shown`: only those a viewer shows (a CLI run). */
  scope: 'all' | 'shown';
  shown: () => Set<string>;
}

/**
 * Takes the prompts other cores posted to this workspace's sessions (the mailbox) into the sessions' queues, exactly
 * once, and starts one as a turn when its session is idle here; behind a running turn it waits in the queue (the
 * window shows it queued) and is sent when the turn ends. A session whose turn runs in another process is left to it.
 */
export class InboxDelivery {
  private watcher: FSWatcher | null = null;
  private chain: Promise<void> = Promise.resolve();
  private again = false;
  private closed = false;

  constructor(private readonly deps: InboxDeliveryDeps) {}

  /** Make the mailbox and watch it (`watch`: a workspace others post to), then take what waits. Never throws. */
  async start(watch: boolean): Promise<void> {
    if (watch) {
      try {
        await ensureInbox(this.deps.dir);
        if (!this.closed) {
          this.watcher = watchFolder(this.deps.dir, () => void this.check());
          this.watcher.on('error', () => this.watcher?.close());
          this.watcher.unref();
        }
      } catch {
        // No mailbox to watch: it is still read when a session is shown or a turn ends.
      }
    }
    await this.check();
  }

  /** Take what waits (one check at a time; a check asked for meanwhile runs once after it). */
  check(): Promise<void> {
    if (this.closed) return this.chain;
    if (this.again) return this.chain;
    this.again = true;
    this.chain = this.chain.then(async () => {
      this.again = false;
      await this.deliver().catch(() => {});
    });
    return this.chain;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    await this.chain;
  }

  private async deliver(): Promise<void> {
    const { deps } = this;
    for (const id of await waitingSessions(deps.dir)) {
      if (this.closed) return;
      if (deps.scope === 'shown' && !deps.shown().has(id)) continue;
      if (!(await deps.store.readMeta(id))) continue;
      // Running in another process (its mark, a live pid): that core takes it at its turn's end.
      if (await isRunningElsewhere(deps.store.dirOf(id))) continue;
      const open = await deps.session(id);
      const claimed = await claimInbox(deps.dir, id);
      if (!claimed.length) continue;
      for (const { message } of claimed) if (!open.queue.waiting.some((item) => item.text === message.text && !item.steer)) open.queue.add(message.text, false);
      // In the session's log before the mailbox lets go of them: a crash in between leaves a claim that is put back.
      await open.session.flush();
      await Promise.all(claimed.map((c) => c.done()));
      if (!deps.busyHere(id)) await deps.sendQueued(open);
    }
  }
}
