import { create } from 'zustand';
import type { ElsewhereRequest } from '#protocol';

/**
 * What waits for the user in the host's OTHER cores (the web host runs the main checkout's and one per worktree side
 * by side): approvals, plan reviews, questions, change reviews, as the host last said (`requests.elsewhere`).
 */
interface ElsewhereState {
  requests: ElsewhereRequest[];
  /** How many wait in all (the list stops at ELSEWHERE_LIMIT). */
  total: number;
  set(requests: ElsewhereRequest[], total: number): void;
}

export const useElsewhere = create<ElsewhereState>()((set) => ({
  requests: [],
  total: 0,
  set: (requests, total) => set({ requests, total }),
}));

/** The requests waiting in the core of worktree `name` (null: the main checkout). */
export function waitingIn(requests: readonly ElsewhereRequest[], name: string | null): ElsewhereRequest[] {
  return requests.filter((r) => (r.worktree?.name ?? null) === name);
}

/** "an approval", "2 requests": what waits, in words. */
export function waitingWords(requests: readonly ElsewhereRequest[]): string {
  if (requests.length !== 1) return `${requests.length} requests`;
  const kind = requests[0]!.kind;
  return kind === 'approval' ? 'an approval' : kind === 'plan' ? 'a plan review' : kind === 'question' ? 'a question' : 'a change review';
}
