import type { PlanState } from '../../../../protocol';
import type { FeatureFactory } from '../../contract/feature';
import { controlHub } from './requests';
import { enterPlanModeTool, planWorkflow } from './tools/enter-plan-mode/enter-plan-mode';
import { exitPlanModeTool } from './tools/exit-plan-mode/exit-plan-mode';
import { PLAN_STATE_KEY, planOf, setPlan, switchPlanMode } from './plan-state';

/**
 * Plan mode: the agent investigates read-only, writes a plan file and asks the user to review it
 * (EnterPlanMode / ExitPlanMode, or the window's toggle and /plan). The permission engine enforces it.
 */
export const planFeature: FeatureFactory = (core) => {
  const hub = controlHub(core);
  return {
    name: 'plan',
    tools: (session) => [enterPlanModeTool(session, core.home), exitPlanModeTool(session, core, hub)],
    systemPrompt: (session) => {
      const plan = planOf(session);
      if (!plan?.active || !plan.path) return undefined;
      return `## Plan mode (active)\nThe user wants a plan before any change.\n${planWorkflow(plan.path)}`;
    },
    onUndo: (session, before) => {
      const plan = before<PlanState>(PLAN_STATE_KEY) ?? { active: false };
      const current = planOf(session) ?? { active: false };
      if (plan.active !== current.active || plan.planId !== current.planId) setPlan(session, plan);
    },
    commands: {
      setPlanMode: async ({ sessionId, active }) => {
        const session = await core.session(sessionId);
        const before = planOf(session)?.active ?? false;
        const plan = await switchPlanMode(session, core.home, active);
        if (before !== plan.active) {
          session.inject(
            plan.active
              ? `<system-reminder>The user turned plan mode on.\n${planWorkflow(plan.path!)}</system-reminder>`
              : '<system-reminder>The user turned plan mode off. You may change files again, within the permission mode.</system-reminder>',
          );
        }
        return { plan };
      },
    },
  };
};
