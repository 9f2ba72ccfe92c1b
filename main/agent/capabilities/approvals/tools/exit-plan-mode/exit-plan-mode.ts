import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { ApprovalDesk } from '../../requests';
import { planFact, planOf, setPlan } from '../../plan-state';
import { ToolInputError, access, defineTool } from '#contract/tool';
import description from './exit-plan-mode.md?raw';
import { toolInput } from '#contract/tool-input';

const RESERVED = new Set(['approve', 'reject', 'reject and exit', 'revise']);

const Input = toolInput('ExitPlanMode', () =>
  z
    .object({
      options: z
        .array(
          z
            .object({
              label: z.string().trim().min(1).max(80).describe('A short name for the approach (1–80 characters).'),
              description: z.string().max(2_000).default('').describe('What this approach means in practice.'),
            })
            .strict(),
        )
        .min(1)
        .max(3)
        .optional()
        .describe('Alternative approaches the user may choose between when approving.'),
    })
    .strict(),
);

async function readPlan(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

export function exitPlanModeTool(session: SessionHandle, core: Pick<CoreContext, 'host'>, desk: ApprovalDesk) {
  return defineTool({
    name: 'ExitPlanMode',
    // The user reviews the plan inside the call; plan mode belongs to the main conversation (the parent's applies to sub-agents).
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input: Input,
    resolveExecution: async (args) => {
      const plan = planOf(session);
      if (!plan?.active || !plan.path)
        throw new ToolInputError('ExitPlanMode can only be called while plan mode is active. Call EnterPlanMode first, or carry on without a plan.');
      const options = args.options ?? [];
      const seen = new Set<string>();
      for (const option of options) {
        const key = option.label.toLowerCase();
        if (RESERVED.has(key))
          throw new ToolInputError(
            `"${option.label}" cannot be an option label: Approve, Reject, Reject and Exit and Revise are the review's own answers. Name the approach itself.`,
          );
        if (seen.has(key)) throw new ToolInputError(`Option labels must be unique; "${option.label}" appears twice.`);
        seen.add(key);
      }
      const text = await readPlan(plan.path);
      if (!text.trim()) throw new ToolInputError(`The plan file is empty. Write your plan to ${plan.path} first (with Write), then call ExitPlanMode again.`);
      const shown = options.length >= 2 ? options.map((o) => ({ label: o.label, description: o.description })) : undefined;
      return {
        accesses: access.readFile(plan.path),
        description: 'Plan ready for review',
        display: { kind: 'plan_review', plan: text, path: plan.path, ...(shown ? { options: shown } : {}) },
        approvalRule: 'ExitPlanMode',
        execute: async (ctx) => {
          const approved = (choice?: string) => {
            setPlan(session, { ...plan, active: false });
            const detail = options.find((o) => o.label === choice)?.description;
            const picked = choice ? ` and chose the approach "${choice}"${detail ? ` (${detail})` : ''}` : '';
            return `Exited plan mode: the user approved the plan${picked}. Carry it out now.\n\n## Approved Plan:\n${text}`;
          };
          const off = [planFact({ ...plan, active: false })];
          if (!core.host.canAsk) {
            setPlan(session, { ...plan, active: false });
            return {
              output: `Exited plan mode. This run is headless, so the plan was auto-approved and NOT reviewed by the user. Carry it out carefully.\n\n## Approved Plan:\n${text}`,
              announces: off,
            };
          }
          const answer = await desk.requestApproval(
            session,
            {
              turnId: ctx.turnId,
              kind: 'plan_review',
              toolName: 'ExitPlanMode',
              callId: ctx.callId,
              description: 'Review the plan',
              display: { kind: 'plan_review', plan: text, path: plan.path!, ...(shown ? { options: shown } : {}) },
              reason: 'The plan is ready for your review.',
              ...(shown ? { options: shown.map((o) => o.label) } : {}),
            },
            ctx.signal,
          );
          if (answer === 'cancelled') return { output: 'The user stopped the turn before reviewing the plan. Plan mode is still on.', isError: true };
          if (answer.decision === 'approve') return { output: approved(answer.selectedLabel), announces: off };
          if (answer.decision === 'revise') {
            return {
              output: `The user wants the plan revised before approving it. Their feedback: "${answer.feedback}". Update the plan file ${plan.path}, then call ExitPlanMode again. Plan mode is still on.`,
            };
          }
          setPlan(session, { ...plan, active: false });
          const why = answer.feedback?.trim() ? ` Their feedback: "${answer.feedback.trim()}".` : '';
          return {
            output: `The user rejected the plan.${why} Plan mode is off. Do not carry out this plan; ask the user how they want to proceed.`,
            isError: true,
            announces: off,
          };
        },
      };
    },
  });
}
