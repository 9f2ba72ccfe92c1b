import { z } from 'zod';
import type { SessionHandle } from '../../../../contract/feature';
import { planOf, switchPlanMode } from '../../plan-state';
import { ToolInputError, access, defineTool } from '../../../../contract/tool';
import description from './enter-plan-mode.md?raw';

/** The workflow the model follows once plan mode is on. */
export function planWorkflow(path: string): string {
  return [
    `Plan mode is on. Plan file: ${path}`,
    '1. Investigate with read-only tools only; change nothing else.',
    '2. Write the plan to the plan file with Write (refine it with Edit): the goal, the files to change and how, risks, and how to verify the result. Only this file may be written while planning.',
    '3. Call ExitPlanMode to show the plan to the user. If they ask for revisions, update the file and call ExitPlanMode again. Do not start implementing before they approve.',
  ].join('\n');
}

export function enterPlanModeTool(session: SessionHandle, home: string) {
  return defineTool({
    name: 'EnterPlanMode',
    description,
    input: z.object({}).strict(),
    resolveExecution: () => {
      const current = planOf(session);
      if (current?.active) throw new ToolInputError(`Plan mode is already active. Write the plan to ${current.path ?? 'the plan file'} and call ExitPlanMode.`);
      return {
        accesses: access.none(),
        description: 'Enter plan mode',
        display: { kind: 'generic', summary: 'Enter plan mode' },
        approvalRule: 'EnterPlanMode',
        execute: async () => {
          const plan = await switchPlanMode(session, home, true);
          return { output: planWorkflow(plan.path!) };
        },
      };
    },
  });
}
