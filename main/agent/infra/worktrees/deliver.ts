import { inboxDir, peekInbox, postToInbox } from '../sessions/inbox';
import { SessionStore } from '../sessions/store';
import type { WorktreeRecord } from './records';

/** Who the conflict handoff's messages are from (the mailbox's `from`). */
export const HANDOFF_FROM = 'the worktree conflict handoff';

/** The session of the worktree a handed-over conflict was posted to. */
export interface Delivered {
  sessionId: string;
  title: string;
  /** A session made for it (the worktree had none). */
  created: boolean;
}

/**
 * Post the conflict prompt to the worktree's newest session (one is made when it has none) through the sessions'
 * mailbox (infra/sessions/inbox.ts): the core that has the worktree open — its window, now or later — takes it as
 * that session's next prompt, exactly once. Nothing here runs in the worktree's core.
 */
export async function deliverHandoff(home: string, record: Pick<WorktreeRecord, 'path'>, prompt: string, now = Date.now()): Promise<Delivered> {
  const store = new SessionStore(home, record.path);
  const newest = (await store.list())[0];
  const target = newest ? { id: newest.id, title: newest.title, created: false } : await made(store);
  await postToInbox(inboxDir(home, record.path), { sessionId: target.id, text: prompt, from: HANDOFF_FROM, createdAt: now });
  return { sessionId: target.id, title: target.title, created: target.created };
}

async function made(store: SessionStore): Promise<{ id: string; title: string; created: boolean }> {
  const session = await store.create();
  return { id: session.id, title: session.summary().title, created: true };
}

/**
 * The session a handed-over conflict waits for in the worktree's mailbox — posted, and not taken by any Deft yet
 * (no window has the worktree open, no `deft worktrees resolve` ran) — or null. Reads only: nothing is claimed.
 */
export async function handoffWaiting(home: string, record: Pick<WorktreeRecord, 'path'>): Promise<string | null> {
  const waiting = await peekInbox(inboxDir(home, record.path));
  return waiting.find((m) => m.from === HANDOFF_FROM)?.sessionId ?? null;
}
