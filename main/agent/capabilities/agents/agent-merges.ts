import { isAncestor } from '#infra/worktrees/checkout';
import { type AgentMergeOutcome, type AgentMergeTarget, branchCommit, mergeAgentCommit } from '#infra/worktrees/agent-merge';
import type { WorktreeMachine } from '#infra/worktrees/machine';
import type { WorktreeRecord } from '#infra/worktrees/records';
import type { Worktrees } from '#infra/worktrees/worktrees';
import { MERGE_AGENT_WORK_TOOL } from './tools/names';

export interface AgentMergeOptions {
  squash: boolean;
  message?: string;
  /** Merge the branch's commit now when it builds on the recorded one (a conflict resolved there by hand). */
  includeLaterCommits: boolean;
  /** After a merge, remove the worktree (and its branch, when merged) if nothing would be lost. */
  cleanup: boolean;
}

/** One sub-agent's merge as the model reads it. */
export interface AgentMergeReport {
  name: string;
  branch: string;
  status: AgentMergeOutcome['status'];
  files: string[];
  lines: string[];
}

/**
 * The worktrees Deft made for this session's isolated sub-agents, by name or branch, in the order asked — from Deft's
 * records only (never from anything in a worktree). Throws a readable refusal naming what is not one of them.
 */
export async function agentWorktrees(repo: Worktrees, sessionId: string, asked: readonly string[]): Promise<WorktreeRecord[]> {
  const own = (await repo.records.list()).filter((r) => r.session === sessionId && r.path === repo.records.pathOf(r.name));
  const found: WorktreeRecord[] = [];
  const unknown: string[] = [];
  for (const key of asked) {
    const record = own.find((r) => r.name === key || r.branch === key);
    if (!record) unknown.push(key);
    else if (!found.includes(record)) found.push(record);
  }
  if (unknown.length) {
    const known = own.map((r) => `${r.name} (${r.branch})`).join(', ') || 'none';
    throw new Error(
      `Nothing was merged: ${unknown.map((k) => `"${k}"`).join(', ')} ${unknown.length === 1 ? 'is not a worktree' : 'are not worktrees'} Deft made for this session's isolated sub-agents. ${MERGE_AGENT_WORK_TOOL} merges only those; this session's: ${known}.`,
    );
  }
  return found;
}

/** Which commit to merge: the one recorded when the sub-agent finished (or, when asked, its branch's later commit on top of it). */
async function commitToMerge(
  repo: Worktrees,
  record: WorktreeRecord,
  options: AgentMergeOptions,
): Promise<{ commit: string; note?: string } | { refused: string }> {
  const pinned = record.agentTip;
  if (!pinned)
    return {
      refused: `no finished work is recorded for it (its sub-agent is still running, or its commit could not be read when it ended). Wait for its result, or the user merges it: deft worktrees merge ${record.name}.`,
    };
  const root = repo.repoRoot;
  if (!(await isAncestor(repo.machine, root, record.baseCommit, pinned)))
    return {
      refused: `its recorded commit ${pinned.slice(0, 12)} does not build on the commit its worktree started from (${record.baseCommit.slice(0, 12)}): Deft does not merge it. Look at it yourself, or discard it.`,
    };
  const now = await branchCommit(repo.machine, root, record.branch);
  if (now === pinned || !options.includeLaterCommits) {
    const moved =
      now !== pinned
        ? `its branch now points elsewhere (${now ? now.slice(0, 12) : 'unreadable'}); only the commit recorded when it finished was merged.`
        : undefined;
    return { commit: pinned, ...(moved ? { note: moved } : {}) };
  }
  if (!now || !(await isAncestor(repo.machine, root, pinned, now)))
    return {
      refused: `its branch no longer builds on the commit recorded when it finished (${pinned.slice(0, 12)}): it was moved elsewhere. Merge without include_later_commits to merge that commit.`,
    };
  return { commit: now, note: `commits added on its branch after it finished were included (up to ${now.slice(0, 12)}).` };
}

const q = (files: readonly string[]) => files.join(', ');

function conflictLines(record: WorktreeRecord, target: AgentMergeTarget, files: readonly string[]): string[] {
  return [
    `  Nothing of it was merged: your checkout is exactly as it was before this merge. Do one of these:`,
    `  1. Resolve by hand in its worktree: in ${record.path} run \`git merge ${target.branch}\`, fix the conflict markers in ${q(files)}, \`git add\` them and \`git commit\`; then call ${MERGE_AGENT_WORK_TOOL} again with worktrees: ["${record.name}"] and include_later_commits: true.`,
    `  2. Re-run the work: start a new isolated sub-agent with the same task (its worktree starts from ${target.branch} as it is now), merge that one, and leave this one to be discarded.`,
    `  3. Discard it (its changes are lost): the user runs deft worktrees discard ${record.name} --delete-branch.`,
  ];
}

/** Whether the worktree's `.git` file still names the git folder Deft recorded when it made it (else its state cannot be trusted). */
async function pointsBack(machine: WorktreeMachine, record: WorktreeRecord): Promise<boolean> {
  if (!record.gitDir) return false;
  const text = (await machine.readText(machine.path.join(record.path, '.git'))) ?? '';
  const named = /^gitdir: (.+)$/m.exec(text)?.[1]?.trim();
  if (!named) return false;
  // realpath gives the path back when it cannot be resolved: a git folder that is gone never equals the recorded one's real path.
  const real = await machine.realpath(machine.path.resolve(record.path, named));
  return real === record.gitDir && (await machine.exists(real));
}

/** After a merge: remove the worktree when nothing would be lost; its branch too when the merge keeps its commits. */
async function cleanUp(repo: Worktrees, record: WorktreeRecord, merged: string, target: AgentMergeTarget): Promise<string> {
  try {
    const { machine } = repo;
    if (!(await machine.exists(record.path))) return `  cleanup: its worktree folder is already gone (deft worktrees cleanup forgets it).`;
    // Its state is read through its .git file: only when that still leads where Deft made it.
    if (!(await pointsBack(machine, record)))
      return `  cleanup: kept ${record.path}: its .git file no longer names the git folder Deft made for it; look at it yourself.`;
    const state = await repo.state(record.name);
    if (state.state === 'missing') return `  cleanup: its worktree folder is already gone (deft worktrees cleanup forgets it).`;
    if (state.dirty) return `  cleanup: kept ${record.path}: it has changes made after it finished that are not merged.`;
    const tip = await branchCommit(machine, repo.repoRoot, record.branch);
    const targetTip = await branchCommit(machine, target.checkout, target.branch);
    const kept = tip === merged && targetTip !== null && (await isAncestor(machine, repo.repoRoot, tip, targetTip));
    const { branchDeleted } = await repo.discard(record.name, { deleteBranch: kept });
    return `  cleanup: removed its worktree${branchDeleted ? ' and its branch (merged)' : `; its branch ${record.branch} is kept (its commits are not in ${target.branch}${tip === merged ? ', a squash' : ''})`}.`;
  } catch (error) {
    return `  cleanup: kept its worktree (${(error as Error).message}).`;
  }
}

/** Merge each sub-agent's recorded work into the parent's checkout, one after another, in order. Never throws. */
export async function mergeAgentWork(
  repo: Worktrees,
  records: readonly WorktreeRecord[],
  target: AgentMergeTarget,
  options: AgentMergeOptions,
): Promise<AgentMergeReport[]> {
  const reports: AgentMergeReport[] = [];
  for (const asked of records) {
    const head = `- ${asked.name} (branch ${asked.branch}):`;
    const report = (status: AgentMergeOutcome['status'], files: string[], lines: string[]) =>
      reports.push({ name: asked.name, branch: asked.branch, status, files, lines: [head + lines[0], ...lines.slice(1)] });
    try {
      // Read again: the recorded commit is written when the sub-agent finishes.
      const record = (await repo.records.read(asked.name)) ?? asked;
      const chosen = await commitToMerge(repo, record, options);
      if ('refused' in chosen) {
        report('refused', [], [` NOT MERGED: ${chosen.refused}`]);
        continue;
      }
      const note = chosen.note ? [`  note: ${chosen.note}`] : [];
      const outcome = await mergeAgentCommit(repo.machine, record, chosen.commit, target, {
        squash: options.squash,
        ...(options.message ? { message: options.message } : {}),
      });
      if (outcome.status === 'merged') {
        const clean = options.cleanup ? [await cleanUp(repo, record, chosen.commit, target)] : [];
        report('merged', outcome.files, [
          ` MERGED into ${target.branch}${outcome.squashed ? ' (squashed)' : ''} as ${outcome.commit.slice(0, 12)}: ${q(outcome.files)}`,
          ...note,
          ...clean,
        ]);
      } else if (outcome.status === 'conflict')
        report('conflict', outcome.files, [` CONFLICT in ${q(outcome.files)}`, ...note, ...conflictLines(record, target, outcome.files)]);
      else if (outcome.status === 'nothing') report('nothing', [], [` nothing to merge: ${target.branch} already has its changes.`, ...note]);
      else if (outcome.status === 'dirty')
        report('dirty', outcome.files, [
          ` NOT MERGED: your checkout has uncommitted changes in ${q(outcome.files)}, which this merge would change. Nothing changed. Commit or undo them, then call ${MERGE_AGENT_WORK_TOOL} again for it.`,
          ...note,
        ]);
      else report('refused', [], [` NOT MERGED: ${outcome.reason}`, ...note]);
    } catch (error) {
      report('refused', [], [` NOT MERGED: ${(error as Error).message}`]);
    }
  }
  return reports;
}
