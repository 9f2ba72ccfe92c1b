import { localEnvironment } from './infra/environment/local/local-environment';
import { describe, expect, it } from 'vitest';
import type { SessionHandle } from './contract/capability';
import { createApprovalDesk } from './capabilities/approvals/requests';
import { askUserQuestionTool } from './capabilities/approvals/tools/ask-user-question/ask-user-question';
import { createGoalTool } from './capabilities/goals/tools/create-goal/create-goal';
import { enterPlanModeTool } from './capabilities/approvals/tools/enter-plan-mode/enter-plan-mode';
import { exitPlanModeTool } from './capabilities/approvals/tools/exit-plan-mode/exit-plan-mode';
import { getGoalTool } from './capabilities/goals/tools/get-goal/get-goal';
import { ToolRegistry } from './runtime/tools/registry';
import { setGoalBudgetTool } from './capabilities/goals/tools/set-goal-budget/set-goal-budget';
import { todoListTool } from './capabilities/todo/tools/todo-list/todo-list';
import { noWorkspaceSandbox } from '#test-support/session-handle';
import { updateGoalTool } from './capabilities/goals/tools/update-goal/update-goal';
import { webHost } from '../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

describe('the schemas the model sees', () => {
  it('change only on purpose (plan, question, todo and goal tools)', async () => {
    const session = {} as SessionHandle;
    const secrets = { kind: 'file' as const, get: async () => undefined, set: async () => {} };
    const core = {
      environment: localEnvironment(),
      workspace: '/ws',
      place: workspacePlace('/ws'),
      home: '/home',
      host: webHost,
      now: () => 0,
      emitApp: () => {},
      secrets,
      session: async () => session,
      sandboxStatus: async () => ({ available: false, enabled: false }),
      workspaceSandbox: noWorkspaceSandbox('/ws'),
    };
    const tools = [
      enterPlanModeTool(session, '/home'),
      exitPlanModeTool(session, core, createApprovalDesk(core)),
      askUserQuestionTool(session, createApprovalDesk(core)),
      todoListTool(session),
      createGoalTool(session, core),
      getGoalTool(session, core),
      setGoalBudgetTool(session, core),
      updateGoalTool(session, core),
    ];
    const wire = new ToolRegistry(tools as never).schemas().map((t) => ({ name: t.name, parameters: t.parameters, description: t.description }));
    await expect(JSON.stringify(wire, null, 2) + '\n').toMatchFileSnapshot('__snapshots__/workflow-tools.schema.json');
  });
});
