import { describe, expect, it } from 'vitest';
import type { SessionHandle } from '../features/types';
import { controlHub } from '../permissions/hub';
import { askUserQuestionTool } from './ask-user-question/ask-user-question';
import { createGoalTool } from './create-goal/create-goal';
import { enterPlanModeTool } from './enter-plan-mode/enter-plan-mode';
import { exitPlanModeTool } from './exit-plan-mode/exit-plan-mode';
import { getGoalTool } from './get-goal/get-goal';
import { ToolRegistry } from './registry';
import { setGoalBudgetTool } from './set-goal-budget/set-goal-budget';
import { todoListTool } from './todo-list/todo-list';
import { updateGoalTool } from './update-goal/update-goal';

describe('the schemas the model sees', () => {
  it('change only on purpose (plan, question, todo and goal tools)', async () => {
    const session = {} as SessionHandle;
    const core = { workspace: '/ws', home: '/home', host: 'web' as const, now: () => 0, emitApp: () => {}, session: async () => session };
    const tools = [
      enterPlanModeTool(session, '/home'),
      exitPlanModeTool(session, core, controlHub(core)),
      askUserQuestionTool(session, controlHub(core)),
      todoListTool(session),
      createGoalTool(session, core),
      getGoalTool(session, core),
      setGoalBudgetTool(session, core),
      updateGoalTool(session, core),
    ];
    const wire = new ToolRegistry(tools as never).schemas().map((t) => ({ name: t.name, parameters: t.parameters, description: t.description }));
    await expect(JSON.stringify(wire, null, 2) + '\n').toMatchFileSnapshot('__snapshots__/control-tools.schema.json');
  });
});
