import { z } from 'zod';
import type { SessionHandle } from '#contract/capability';
import { planFact, planOf, planWorkflow, switchPlanMode } from '../../plan-state';
import { ToolInputError, access, defineTool } from '#contract/tool';
import description from './enter-plan-mode.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('EnterPlanMode', () => z.object({}).strict());

export function enterPlanModeTool(session: SessionHandle, home: string) {
  return defineTool({
    name: 'EnterPlanMode',
    // Only switches the session's own mode; plan mode belongs to the main conversation (the parent's applies to sub-agents).
    policy: { approval: 'self', mainAgentOnly: true },
    description,
    input,
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
          return { output: planWorkflow(plan.path!), announces: [planFact(plan)] };
        },
      };
    },
  });
}
