import { create } from 'zustand';
import type { HostView, WorktreeInfo, WorktreeLive, WorktreeLiveInfo } from '#protocol';

/** Which worktree window is open: the new-session-in-a-worktree dialog, or the list with its actions. */
export type WorktreeDialog = 'new' | 'list' | null;

interface WorktreesState {
  /** The repository's main checkout (null: the workspace is not in a git repository; `reason` says why). */
  repoRoot: string | null;
  reason: string | null;
  worktrees: WorktreeInfo[];
  /** Listed at least once. */
  loaded: boolean;
  dialog: WorktreeDialog;
  /** What became of a deleted session's worktree (removed, or kept and why), until dismissed. */
  notice: string | null;
  /** The worktree whose Changes view is open (the current session's), or null. */
  changesOf: string | null;
  /**
   * The worktree this window shows (the web host: its core runs beside the main checkout's, switched to by name), or
   * null on the main checkout (and in the desktop app, where a worktree has a window of its own).
   */
  viewing: HostView['worktree'];
  setViewing(viewing: HostView['worktree']): void;
  /** What the main checkout's sessions are doing now, as last polled from a window on a worktree. */
  mainLive: WorktreeLive;
  /**
   * The same, session by session: those that run or wait, and — since this window showed the worktree — those that
   * stopped doing so (`done`: their turn ended, or what waited was answered elsewhere).
   */
  mainSessions: MainSessionState[];
  setMainLive(live: WorktreeLive, sessions?: ReadonlyArray<{ id: string; title: string; live: WorktreeLive }>): void;
  setList(list: { repoRoot: string | null; reason?: string; worktrees: WorktreeInfo[] }): void;
  /**
   * What the worktrees' sessions are doing now (the cheap poll: no git), put on the list. Returns whether anything
   * moved — a session started, ended or began to wait, a handed-over conflict began or stopped waiting in a
   * worktree's mailbox, a worktree came or went — so the git figures are read again.
   */
  setLive(live: readonly WorktreeLiveInfo[]): boolean;
  showChanges(name: string | null): void;
  show(dialog: WorktreeDialog): void;
  tell(notice: string | null): void;
}

/** A main checkout's session as a window on a worktree shows it. */
export interface MainSessionState {
  id: string;
  title: string;
  live: 'running' | 'waiting' | 'done';
}

/** The main checkout's sessions now, from the poll: what ran or waited before and is no longer listed is `done`. */
export function mainSessionsNow(
  before: readonly MainSessionState[],
  now: ReadonlyArray<{ id: string; title: string; live: WorktreeLive }>,
): MainSessionState[] {
  const busy: MainSessionState[] = now
    .filter((s) => s.live !== 'idle')
    .map((s) => ({ id: s.id, title: s.title, live: s.live === 'waiting' ? 'waiting' : 'running' }));
  const ids = new Set(busy.map((s) => s.id));
  const done = before.filter((s) => !ids.has(s.id)).map((s) => ({ ...s, live: 'done' as const }));
  return [...busy, ...done].slice(0, 20);
}

export const useWorktrees = create<WorktreesState>()((set, get) => ({
  repoRoot: null,
  reason: null,
  worktrees: [],
  loaded: false,
  dialog: null,
  notice: null,
  changesOf: null,
  viewing: null,
  setViewing: (viewing) => set({ viewing }),
  mainLive: 'idle',
  mainSessions: [],
  setMainLive: (mainLive, sessions) => set((s) => ({ mainLive, ...(sessions ? { mainSessions: mainSessionsNow(s.mainSessions, sessions) } : {}) })),
  setList: ({ repoRoot, reason, worktrees }) => set({ repoRoot, reason: reason ?? null, worktrees, loaded: true }),
  setLive: (live) => {
    const { worktrees } = get();
    const key = (w: Pick<WorktreeInfo, 'name' | 'sessions' | 'conflictWaiting'>) =>
      `${w.name}:${w.sessions.map((s) => `${s.id}=${s.live}`).join(',')}:${w.conflictWaiting ?? ''}`;
    const moved = live.length !== worktrees.length || live.some((w, i) => key(w) !== key(worktrees[i] ?? { name: '', sessions: [] }));
    if (!moved) return false;
    // Shown at once; the git figures follow when the list is read again.
    const now = new Map(live.map((w) => [w.name, w]));
    set({
      worktrees: worktrees.map((w) => {
        const seen = now.get(w.name);
        if (!seen) return w;
        const { conflictWaiting: _gone, ...rest } = w;
        return { ...rest, ...seen };
      }),
    });
    return true;
  },
  showChanges: (changesOf) => set({ changesOf }),
  show: (dialog) => set({ dialog }),
  tell: (notice) => set({ notice }),
}));

/** The worktree of this name, as last listed. */
export function worktreeNamed(worktrees: readonly WorktreeInfo[], name: string): WorktreeInfo | undefined {
  return worktrees.find((w) => w.name === name);
}

/** "Merge deft/<name>: <its newest session's title>" — the message a merge starts with (editable). */
export function draftMergeMessage(worktree: WorktreeInfo): string {
  const title = worktree.sessions[0]?.title;
  return title && title !== 'New session' ? `Merge ${worktree.branch}: ${title}` : `Merge ${worktree.branch}`;
}
