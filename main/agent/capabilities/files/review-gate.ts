import type { DiffHunk } from '#protocol';
import { type ToolEnv, type ToolResult, type ToolRunContext, errorResult } from '#contract/tool';
import { applyHunks } from '#infra/text/apply-hunks';
import { diffTexts } from '#infra/text/diff-hunks';
import type { GuardedPath } from '#infra/policies/path-guard';

type Hunk = DiffHunk;

/** What to write after the user's review: the accepted text (and what to tell the model), or a refusal. */
export type Reviewed = { kind: 'write'; text: string; report: string | null } | { kind: 'rejected'; result: ToolResult };

export interface ProposedChange {
  toolName: string;
  path: GuardedPath;
  /** The file's text now (LF view); null when it is not text (the change is then reviewed whole). */
  before: string | null;
  after: string;
  created: boolean;
}

/** Whether the user reviews changes to this file before they are written (review mode). */
export function isReviewed(env: ToolEnv, path: GuardedPath): boolean {
  return env.reviewer?.reviews(path.real) === true;
}

/**
 * Review mode: the change is shown to the user as hunks, each accepted or rejected, before anything is
 * written. The text to write holds the accepted hunks only, and the model is told exactly which were
 * applied and which were not (with the rejected ones' diff and the user's words).
 */
export async function reviewChange(env: ToolEnv, ctx: ToolRunContext, change: ProposedChange): Promise<Reviewed> {
  const reviewer = env.reviewer;
  if (!reviewer?.reviews(change.path.real)) return { kind: 'write', text: change.after, report: null };
  const diff = change.before === null ? { hunks: [] as Hunk[], added: 0, removed: 0 } : diffTexts(change.before, change.after);
  if (change.before !== null && !diff.hunks.length) return { kind: 'write', text: change.after, report: null };
  let verdict;
  try {
    verdict = await reviewer.review({
      callId: ctx.callId,
      turnId: ctx.turnId,
      toolName: change.toolName,
      path: change.path.display,
      created: change.created,
      hunks: diff.hunks,
      added: diff.added,
      removed: diff.removed,
      signal: ctx.signal,
    });
  } catch {
    return {
      kind: 'rejected',
      result: errorResult(`The turn was stopped while the user was reviewing this change to ${change.path.display}; nothing was written.`),
    };
  }
  const words = verdict.feedback?.trim() ? `\nThe user's note: ${verdict.feedback.trim()}` : '';
  const decisions = diff.hunks.length ? diff.hunks.map((_, i) => verdict.accepted[i] === true) : [verdict.accepted[0] === true];
  const applied = decisions.filter(Boolean).length;
  if (applied === 0) {
    return { kind: 'rejected', result: errorResult(`The user reviewed your change to ${change.path.display} and rejected it: nothing was written.${words}`) };
  }
  if (applied === decisions.length) {
    return {
      kind: 'write',
      text: change.after,
      report: `The user reviewed this change and accepted all of it${diff.hunks.length > 1 ? ` (${diff.hunks.length} hunks)` : ''}.${words}`,
    };
  }
  const text = applyHunks(change.before!, diff.hunks, decisions);
  const numbers = (want: boolean) => decisions.flatMap((d, i) => (d === want ? [i + 1] : []));
  const rejected = diff.hunks
    .filter((_, i) => !decisions[i])
    .map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join('\n')}`);
  const report = [
    `The user reviewed this change hunk by hunk: applied hunk${applied === 1 ? '' : 's'} ${numbers(true).join(', ')} of ${decisions.length}; rejected ${numbers(false).join(', ')}. The file holds only the applied hunks; these were NOT written:`,
    ...rejected,
    words.trim(),
    `Read ${change.path.display} before changing it again.`,
  ].filter(Boolean);
  return { kind: 'write', text, report: report.join('\n') };
}
