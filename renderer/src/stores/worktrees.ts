import { create } from 'zustand';
import type { WorktreeInfo } from '#protocol';

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
  setList(list: { repoRoot: string | null; reason?: string; worktrees: WorktreeInfo[] }): void;
  show(dialog: WorktreeDialog): void;
  tell(notice: string | null): void;
}

export const useWorktrees = create<WorktreesState>()((set) => ({
  repoRoot: null,
  reason: null,
  worktrees: [],
  loaded: false,
  dialog: null,
  notice: null,
  setList: ({ repoRoot, reason, worktrees }) => set({ repoRoot, reason: reason ?? null, worktrees, loaded: true }),
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
