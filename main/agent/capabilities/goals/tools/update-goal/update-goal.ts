import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { budgetExhausted, countingRunningTurn, goalFact, goalView, saveGoal, storedGoal, withStatus } from '../../state';
import { defineTool, errorResult } from '#contract/tool';
import description from './update-goal.md?raw';
import { toolInput } from '#contract/tool-input';

const Input = toolInput('UpdateGoal', () =>
  z
    .object({
      status: z.enum(['active', 'complete', 'blocked']),
      note: z
        .string()
        .trim()
        .max(4_000)
        .optional()
        .describe('For complete: what was achieved. For blocked: what blocks you and what the user must do. Shown to the user.'),
    })
    .strict(),
);

export function updateGoalTool(session: SessionHandle, core: Pick<CoreContext, 'now'>) {
  return defineTool({
    name: 'UpdateGoal',
    // Goal bookkeeping touches only the session's own state; the goal belongs to the conversation with the user.
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input: Input,
    resolveExecution: (args) => ({
      description: `Goal ${args.status}`,
      display: { kind: 'generic', summary: `Goal ${args.status}${args.note ? `: ${args.note.slice(0, 200)}` : ''}` },
      approvalRule: 'UpdateGoal',
      execute: async () => {
        const goal = storedGoal(session);
        if (!goal) return errorResult('There is no goal to update. CreateGoal starts one.');
        if (goal.status === 'complete') return errorResult('The goal is already complete. CreateGoal starts a new one if the user asks for more.');
        const now = core.now();
        if (args.status === 'active') {
          if (goal.status === 'paused') return errorResult('The user paused this goal; only they can resume it. Ask them if you think it should continue.');
          const spent = budgetExhausted(goalView(goal, session, now));
          if (spent) return errorResult(`The goal cannot resume: ${spent}. Raise the budget with SetGoalBudget first (only if the user agreed to it).`);
        }
        const stopping = args.status !== 'active' ? countingRunningTurn(goal, session) : goal;
        saveGoal(session, goal.status === args.status ? { ...goal, updatedAt: now } : withStatus(stopping, session, args.status, args.note, now), now);
        const announces = [goalFact(session, now)];
        if (args.status === 'active') return { output: 'The goal is active again. Keep working toward it.', announces };
        // The goal is over: nothing else of this step runs, and the turn ends here instead of carrying on.
        const output =
          args.status === 'complete'
            ? 'The goal is complete; no more turns will start for it. This turn ends with this call.'
            : 'The goal is blocked; no more turns will start for it. This turn ends with this call; the user reads your note.';
        return { output, announces, stopBatchAfterThis: true, stopTurn: true };
      },
    }),
  });
}
