import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { budgetExhausted, describeGoal, goalFact, goalView, saveGoal, storedGoal, withStatus } from '../../state';
import { ToolInputError, defineTool, errorResult } from '#contract/tool';
import description from './set-goal-budget.md?raw';
import { toolInput } from '#contract/tool-input';

const MS: Record<string, number> = { milliseconds: 1, seconds: 1_000, minutes: 60_000, hours: 3_600_000 };
const DAY_MS = 24 * 3_600_000;

const Input = toolInput('SetGoalBudget', () =>
  z
    .object({
      value: z.number().positive().describe('How much (greater than 0).'),
      unit: z.enum(['turns', 'tokens', 'milliseconds', 'seconds', 'minutes', 'hours']),
    })
    .strict(),
);

export function setGoalBudgetTool(session: SessionHandle, core: Pick<CoreContext, 'now'>) {
  return defineTool({
    name: 'SetGoalBudget',
    // Goal bookkeeping touches only the session's own state; the goal belongs to the conversation with the user.
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input: Input,
    resolveExecution: (args) => {
      let budget: { turns?: number; tokens?: number; timeMs?: number };
      if (args.unit === 'turns' || args.unit === 'tokens') {
        budget = { [args.unit]: Math.max(1, Math.round(args.value)) };
      } else {
        const timeMs = Math.round(args.value * MS[args.unit]!);
        if (timeMs < 1_000 || timeMs > DAY_MS)
          throw new ToolInputError(`A time budget must be between 1 second and 24 hours; ${args.value} ${args.unit} is not.`);
        budget = { timeMs };
      }
      // No accesses: goal tools run one at a time, in order, so a budget set right after CreateGoal finds the goal.
      return {
        description: `Goal budget: ${args.value} ${args.unit}`,
        display: { kind: 'generic', summary: `Goal budget: ${args.value} ${args.unit}` },
        approvalRule: 'SetGoalBudget',
        execute: async () => {
          const goal = storedGoal(session);
          if (!goal) return errorResult('There is no goal to budget. Call CreateGoal first.');
          const now = core.now();
          let next = { ...goal, budget: { ...goal.budget, ...budget }, updatedAt: now };
          const spent = budgetExhausted(goalView(next, session, now));
          if (spent && next.status === 'active') next = withStatus(next, session, 'blocked', `Budget used up: ${spent}`, now);
          const view = saveGoal(session, next, now)!;
          const result = {
            output: `Budget set.\n${describeGoal(view)}`,
            display: { kind: 'structured' as const, data: view },
            announces: [goalFact(session, now)],
          };
          if (!spent) return result;
          // The goal just stopped: nothing else of this step runs, and the turn ends here.
          return {
            ...result,
            output: `${result.output}\nThe budget is already used up (${spent}), so the goal is now blocked and this turn ends with this call.`,
            stopBatchAfterThis: true,
            stopTurn: true,
          };
        },
      };
    },
  });
}
