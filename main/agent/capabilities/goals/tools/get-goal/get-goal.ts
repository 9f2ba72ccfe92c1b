import { z } from 'zod';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { goalFact, goalView, storedGoal } from '../../state';
import { defineTool } from '#contract/tool';
import description from './get-goal.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('GetGoal', () => z.object({}).strict());

export function getGoalTool(session: SessionHandle, core: Pick<CoreContext, 'now'>) {
  return defineTool({
    name: 'GetGoal',
    // Goal bookkeeping touches only the session's own state; the goal belongs to the conversation with the user.
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input,
    resolveExecution: () => ({
      description: 'Read the goal',
      display: { kind: 'generic', summary: 'Read the goal' },
      approvalRule: 'GetGoal',
      readOnly: true,
      execute: async () => {
        const goal = storedGoal(session);
        if (!goal) return { output: 'There is no goal. CreateGoal starts one when the user asks for sustained work.' };
        const view = goalView(goal, session, core.now());
        return { output: JSON.stringify(view, null, 2), display: { kind: 'structured', data: view }, announces: [goalFact(session, core.now())] };
      },
    }),
  });
}
