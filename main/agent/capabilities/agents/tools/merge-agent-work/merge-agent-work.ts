import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { type Tool, defineTool, errorResult } from '#contract/tool';
import { checkedOutBranch } from '#infra/worktrees/agent-merge';
import type { Worktrees } from '#infra/worktrees/worktrees';
import { workspaceWorktrees } from '../../isolation';
import type { AgentMergeReport } from '../../agent-merges';
import { MERGE_AGENT_WORK_TOOL } from '../names';
import description from './merge-agent-work.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('MergeAgentWork', () =>
  z
    .object({
      worktrees: z
        .array(z.string().trim().min(1).max(200))
        .min(1)
        .max(50)
        .describe("The worktree names (or branches) from the isolated sub-agents' results, in the order to merge them."),
      squash: z.boolean().default(false).describe('One commit per sub-agent instead of a merge commit.'),
      message: z.string().trim().min(1).max(5_000).optional().describe('The commit message (default: names the branch).'),
      include_later_commits: z
        .boolean()
        .default(false)
        .describe('Also merge commits added on its branch after it finished (a conflict you resolved there by hand).'),
      cleanup: z.boolean().default(true).describe('Remove a merged worktree (and its merged branch) when nothing would be lost.'),
    })
    .strict(),
);

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The first line: how many merged, and which did not. */
function summary(reports: readonly AgentMergeReport[], branch: string): string {
  const merged = reports.filter((r) => r.status === 'merged').length;
  const conflicts = reports.filter((r) => r.status === 'conflict');
  const other = reports.filter((r) => r.status === 'refused' || r.status === 'dirty').length;
  const parts = [`Merged ${merged} of ${plural(reports.length, 'sub-agent')} into ${branch}`];
  if (conflicts.length) parts.push(`${plural(conflicts.length, 'conflict')} (${conflicts.map((c) => `${c.name}: ${c.files.join(', ')}`).join('; ')})`);
  if (other) parts.push(`${other} not merged`);
  return parts.join('; ');
}

/** Merge isolated sub-agents' branches into the parent's checkout: a write, approved like any other (and not in plan mode). */
export function mergeAgentWorkTool(session: SessionHandle, core: CoreContext): Tool {
  return defineTool({
    name: MERGE_AGENT_WORK_TOOL,
    policy: { approval: 'rules', mainAgentOnly: true },
    description,
    input,
    resolveExecution: async (args, env) => {
      if (session.agent) return errorResult("A sub-agent cannot merge other sub-agents' work.");
      let repo: Worktrees;
      try {
        repo = await workspaceWorktrees(core);
      } catch (error) {
        return errorResult(`Nothing was merged: the workspace is not in a git repository (${(error as Error).message}).`);
      }
      const checkout = await repo.machine.repositoryRoot(env.workspace);
      const branch = checkout ? await checkedOutBranch(repo.machine, checkout) : null;
      if (!checkout || !branch) return errorResult('Nothing was merged: your checkout is on no branch (a detached HEAD). Check out a branch first.');
      // The merge code is loaded with the first merge.
      const { agentWorktrees, mergeAgentWork } = await import('../../agent-merges');
      let records;
      try {
        records = await agentWorktrees(repo, session.id, args.worktrees);
      } catch (error) {
        return errorResult((error as Error).message);
      }
      const names = records.map((r) => r.branch).join(', ');
      const target = { checkout, branch, workspace: env.workspace };
      return {
        description: `Merge ${names} into ${branch}${args.squash ? ' (squash)' : ''}${args.include_later_commits ? ', including commits added after they finished' : ''}`,
        display: {
          kind: 'generic',
          summary: `${MERGE_AGENT_WORK_TOOL} ${names} → ${branch}`,
          detail: records.map((r) => `${r.branch} (${r.path})`).join('\n'),
        },
        approvalRule: MERGE_AGENT_WORK_TOOL,
        execute: async () => {
          const reports = await mergeAgentWork(repo, records, target, {
            squash: args.squash,
            includeLaterCommits: args.include_later_commits,
            cleanup: args.cleanup,
            ...(args.message ? { message: args.message } : {}),
          });
          const head = summary(reports, branch);
          const merged = reports.some((r) => r.status === 'merged' || r.status === 'nothing');
          return {
            output: [head + '.', ...reports.flatMap((r) => r.lines)].join('\n'),
            display: { kind: 'generic', summary: head, detail: reports.map((r) => r.lines[0]!.replace(/^- /, '')).join('\n') },
            ...(merged ? {} : { isError: true }),
          };
        },
      };
    },
  });
}
