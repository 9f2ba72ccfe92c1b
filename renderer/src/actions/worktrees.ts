import { DeftError } from '#protocol/helpers/bridge';
import type { WorktreeApplyOutcome, WorktreeMergeOutcome } from '#protocol';
import { deft, hostView } from '../bridge';
import { resetCoreStores } from '../stores/reset';
import { useWorktrees } from '../stores/worktrees';
import { attempt } from './attempt';
import { type Outcome, outcome } from './outcome';

// The window's side of Deft's git worktrees (issue 30). The core resolves every path: the window sends names only.

/** Listings started so far: only the newest one's answer is kept. */
let listings = 0;

/**
 * List the repository's worktrees again (quietly: outside a repository the list is empty and says why; where the core
 * has no worktrees at all — a remote folder — there is simply no repository to offer them in).
 */
export function refreshWorktrees(): Promise<void> {
  const mine = ++listings;
  return attempt(async () => {
    try {
      const list = await deft.listWorktrees({});
      // A listing that started before a newer one and ended after it is older news: dropped.
      if (mine !== listings) return;
      useWorktrees.getState().setList(list);
    } catch (error) {
      if (DeftError.from(error).code !== 'unsupported') throw error;
      useWorktrees.getState().setList({ repoRoot: null, reason: DeftError.from(error).detail, worktrees: [] });
    }
  });
}

/**
 * The sidebar's poll: only what the worktrees' sessions are doing now (no git). When something moved — a turn began
 * or ended there, a question waits, a worktree came or went — the whole list (changed files and all) is read again.
 */
export function refreshWorktreeLive(): Promise<void> {
  return attempt(async () => {
    try {
      const { worktrees, main, mainSessions } = await deft.worktreesLive({});
      useWorktrees.getState().setMainLive(main ?? 'idle', mainSessions);
      if (useWorktrees.getState().setLive(worktrees)) await refreshWorktrees();
    } catch (error) {
      if (DeftError.from(error).code !== 'unsupported') throw error;
    }
  });
}

/** A worktree's diff against its base, file by file: its Changes view. */
export function worktreeChanges(name: string) {
  return outcome(() => deft.worktreeChanges({ name }));
}

/** The session to open once the switch asked for lands (a request waiting there was clicked), or null. */
let sessionAfterSwitch: string | null = null;

/**
 * Which core the window shows (the web host's first word on each connection): a worktree's, by name, or the main
 * checkout's — and, when the worktree it was on could not be opened again, why. After a switch (in place, no reload),
 * every store of what the core left said starts again, and `refill` loads the new core's (its sessions and the one to
 * open: the one a click asked for, else the one last shown there).
 */
export function followHostView(refill: (sessionId: string | null) => void): () => void {
  const hear = (view: ReturnType<typeof hostView.current>, switched = false) => {
    if (!view) return;
    if (switched) resetCoreStores();
    useWorktrees.getState().setViewing(view.worktree);
    if (view.refused) useWorktrees.getState().tell(view.refused);
    if (switched) {
      const sessionId = sessionAfterSwitch;
      sessionAfterSwitch = null;
      refill(sessionId);
    }
  };
  hear(hostView.current());
  return hostView.subscribe(hear);
}

/**
 * Show worktree `name` in this window (its core runs beside this one: nothing here stops), or the main checkout
 * (null), in place; `sessionId`: the session to open there (a request of it waits).
 */
export function switchToWorktree(name: string | null, sessionId?: string): void {
  sessionAfterSwitch = sessionId ?? null;
  hostView.switchTo(name);
}

/**
 * A new worktree on `deft/<name>` from HEAD or `base`, then opened: in a window of its own (desktop), or made ready
 * to be switched to in this one (`here`: the web host).
 */
export async function createWorktreeSession(input: { name?: string; base?: string }) {
  return outcome(async () => {
    const created = await deft.createWorktree({ ...(input.name ? { name: input.name } : {}), ...(input.base ? { base: input.base } : {}) });
    const { opened, here } = await deft.openWorktree({ name: created.worktree.name });
    await refreshWorktrees();
    return { ...created, opened, here: here === true };
  });
}

/** Open a worktree: its window (desktop), or this window switches to its core (the web host) — opening `sessionId` there when given. */
export async function openWorktree(name: string, sessionId?: string) {
  const done = await outcome(() => deft.openWorktree({ name }));
  if (done.ok && done.value.here) switchToWorktree(name, sessionId);
  return done;
}

/** Merge; `shown`: the Changes view's diff (its head and tree) — refused when the worktree moved since, so what is merged is what was shown. */
export async function mergeWorktree(
  name: string,
  squash: boolean,
  message: string,
  shown?: { head: string; tree: string },
): Promise<Outcome<WorktreeMergeOutcome>> {
  const done = await outcome(() =>
    deft.mergeWorktree({
      name,
      squash,
      ...(message.trim() ? { message: message.trim() } : {}),
      ...(shown ? { expect: { head: shown.head, tree: shown.tree } } : {}),
    }),
  );
  await refreshWorktrees();
  return done;
}

/** A merge message drafted by the model from the worktree's diff (or the default one, and why). */
export function draftWorktreeMessage(name: string, squash: boolean) {
  return outcome(() => deft.draftWorktreeMessage({ name, squash }));
}

/** Create branch only: commit its uncommitted changes on its branch, remove the worktree, keep the branch. */
export async function keepWorktreeBranch(name: string, message: string) {
  const done = await outcome(() => deft.keepWorktreeBranch({ name, ...(message.trim() ? { message: message.trim() } : {}) }));
  await refreshWorktrees();
  return done;
}

/** Hand a merge conflict to the worktree (the base merged into its branch there), then open it where the host can. */
export async function handWorktreeConflict(name: string) {
  const done = await outcome(async () => {
    const handed = await deft.handWorktreeConflict({ name });
    // Not switched to here (the web host): the card says what was sent; its row switches there.
    const { opened, here } = await deft.openWorktree({ name });
    return { ...handed, opened: opened && here !== true, here: here === true };
  });
  await refreshWorktrees();
  return done;
}

export async function applyWorktree(name: string): Promise<Outcome<WorktreeApplyOutcome>> {
  const done = await outcome(() => deft.applyWorktree({ name }));
  await refreshWorktrees();
  return done;
}

export async function discardWorktree(name: string, deleteBranch: boolean) {
  const done = await outcome(() => deft.discardWorktree({ name, deleteBranch }));
  await refreshWorktrees();
  return done;
}
