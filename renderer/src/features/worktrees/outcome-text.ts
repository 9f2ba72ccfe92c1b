import type { WorktreeApplyOutcome, WorktreeMergeOutcome } from '#protocol';

/** What a merge did, in words, and the files to list under it. `ok` false: nothing was changed. */
export interface Told {
  ok: boolean;
  text: string;
  files: string[];
  /** A merge conflict: the card offers to hand it to the worktree's session, or to resolve it by hand. */
  conflict?: boolean;
  /** The prompt for the worktree's session (to copy into it). */
  prompt?: string;
  /** Where the conflict went, when this window can show it: the worktree's core, and the session the prompt was sent to. */
  goTo?: { name: string; branch: string; sessionId?: string };
}

const files = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;

export function mergeText(branch: string, outcome: WorktreeMergeOutcome): Told {
  switch (outcome.status) {
    case 'merged':
      return {
        ok: true,
        text: `${outcome.squashed ? 'Squashed' : 'Merged'} ${branch} onto ${outcome.baseBranch} (${outcome.commit.slice(0, 10)}), ${files(outcome.files.length)}.`,
        files: outcome.files,
      };
    case 'nothing':
      return { ok: true, text: `Nothing to merge: ${outcome.baseBranch} already has everything on ${branch}.`, files: [] };
    case 'conflict':
      return {
        ok: false,
        text: `The merge onto ${outcome.baseBranch} would conflict in ${files(outcome.files.length)}. Nothing was changed: resolve it in the worktree's session, or by hand, then merge again.`,
        files: outcome.files,
        conflict: true,
      };
    case 'dirty':
      return {
        ok: false,
        text: `${outcome.checkout} has uncommitted changes in ${files(outcome.files.length)} the merge changes. Nothing was changed: commit or stash them, then merge again.`,
        files: outcome.files,
      };
  }
}

export function applyText(outcome: WorktreeApplyOutcome): Told {
  switch (outcome.status) {
    case 'applied':
      return { ok: true, text: `Applied to the main checkout as uncommitted changes: ${files(outcome.files.length)}.`, files: outcome.files };
    case 'nothing':
      return { ok: true, text: 'Nothing to apply: the worktree has no changes.', files: [] };
    case 'conflict':
      return { ok: false, text: `The changes do not apply to the main checkout (${outcome.message}). Nothing was changed.`, files: outcome.files };
    case 'dirty':
      return {
        ok: false,
        text: `The main checkout has uncommitted changes in ${files(outcome.files.length)} these changes touch. Nothing was changed.`,
        files: outcome.files,
      };
  }
}
