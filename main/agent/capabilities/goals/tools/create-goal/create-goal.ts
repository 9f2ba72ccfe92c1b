import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { describeGoal, goalFact, newGoal, saveGoal, storedGoal } from '../../state';
import { ToolInputError, defineTool, errorResult } from '#contract/tool';
import description from './create-goal.md?raw';
import { toolInput } from '#contract/tool-input';

const Input = toolInput('CreateGoal', () =>
  z
    .object({
      objective: z.string().trim().min(1).max(4_000).describe('The outcome to reach.'),
      completionCriterion: z.string().trim().max(2_000).optional().describe('How to tell the goal is reached, checkably.'),
      replace: z.boolean().default(false).describe('Replace an unfinished goal.'),
    })
    .strict(),
);

export function createGoalTool(session: SessionHandle, core: Pick<CoreContext, 'now'>) {
  return defineTool({
    name: 'CreateGoal',
    // Starting a goal lets the agent work turn after turn: it asks unless the mode is yolo. Goals belong to the main conversation.
    policy: { approval: 'goal-start', mainAgentOnly: true },
    description,
    input: Input,
    resolveExecution: (args) => {
      const existing = storedGoal(session);
      const conflict = (goal: typeof existing) =>
        goal && goal.status !== 'complete' && !args.replace
          ? `A goal already exists (${goal.status}): "${goal.objective}". Pass replace: true to replace it, or work with GetGoal and UpdateGoal.`
          : null;
      const problem = conflict(existing);
      if (problem) throw new ToolInputError(problem);
      // No accesses: goal tools run one at a time, in the order the model issued them.
      return {
        description: `Start a goal: ${args.objective.slice(0, 120)}`,
        display: { kind: 'goal_start', objective: args.objective, ...(args.completionCriterion ? { completionCriterion: args.completionCriterion } : {}) },
        approvalRule: 'CreateGoal',
        execute: async ({ grantedMode }) => {
          const late = conflict(storedGoal(session));
          if (late) return errorResult(late);
          // The user chose, on the goal start card, to let the goal's turns run without asking.
          const mode = grantedMode === 'yolo' ? 'yolo' : 'usual';
          const goal = saveGoal(session, newGoal(session, args.objective, args.completionCriterion || undefined, mode, core.now()), core.now())!;
          const how =
            mode === 'yolo'
              ? '\nThe user chose to let it run without asking: while it is active the permission mode is yolo (deny rules and protected paths still apply).'
              : '';
          return {
            output: `Goal started.\n${describeGoal(goal)}${how}\nWork toward it now. When the completion criterion is met, call UpdateGoal with status "complete"; if you cannot go on without the user, call UpdateGoal with status "blocked" and say why.`,
            display: { kind: 'structured', data: goal },
            announces: [goalFact(session, core.now())],
          };
        },
      };
    },
  });
}
