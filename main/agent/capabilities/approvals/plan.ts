import type { CoreContext, Feature, SessionHandle } from '../../contract/feature';
import type { StateSlot } from '../../contract/state';
import type { ApprovalDesk } from './requests';
import { enterPlanModeTool, planWorkflow } from './tools/enter-plan-mode/enter-plan-mode';
import { exitPlanModeTool } from './tools/exit-plan-mode/exit-plan-mode';
import { planOf, planSlot, setPlan, switchPlanMode } from './plan-state';

/**
 * Plan mode: the agent investigates read-only, writes a plan file and asks the user to review it
 * (EnterPlanMode / ExitPlanMode, or the window's toggle and /plan). The permission engine enforces it.
 */
export function planMode(core: CoreContext, hub: ApprovalDesk) {
  return {
    tools: (session: SessionHandle) => [enterPlanModeTool(session, core.home), exitPlanModeTool(session, core, hub)],
    systemPrompt: (session: SessionHandle) => {
      const plan = planOf(session);
      if (!plan?.active || !plan.path) return undefined;
      return `## Plan mode (active)\nThe user wants a plan before any change.\n${planWorkflow(plan.path)}`;
    },
    onUndo: (session: SessionHandle, before: <T>(slot: StateSlot<T>) => T) => {
      const plan = before(planSlot) ?? { active: false };
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
  } satisfies Omit<Feature, 'name'>;
}
