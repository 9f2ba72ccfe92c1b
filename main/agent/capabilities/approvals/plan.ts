import type { CoreContext, Capability, SessionHandle } from '#contract/capability';
import type { StateSlot } from '#contract/state';
import type { ApprovalDesk } from './requests';
import { enterPlanModeTool } from './tools/enter-plan-mode/enter-plan-mode';
import { exitPlanModeTool } from './tools/exit-plan-mode/exit-plan-mode';
import { planFact, planOf, planSlot, setPlan, switchPlanMode } from './plan-state';

/**
 * Plan mode: the agent investigates read-only, writes a plan file and asks the user to review it
 * (EnterPlanMode / ExitPlanMode, or the window's toggle and /plan). The permission engine enforces it.
 */
export function planMode(core: CoreContext, hub: ApprovalDesk) {
  return {
    tools: (session: SessionHandle) => [enterPlanModeTool(session, core.home), exitPlanModeTool(session, core, hub)],
    facts: (session: SessionHandle) => [planFact(planOf(session))],
    onUndo: (session: SessionHandle, before: <T>(slot: StateSlot<T>) => T) => {
      const plan = before(planSlot) ?? { active: false };
      const current = planOf(session) ?? { active: false };
      if (plan.active !== current.active || plan.planId !== current.planId) setPlan(session, plan);
    },
    commands: {
      setPlanMode: async ({ sessionId, active }) => {
        const session = await core.session(sessionId);
        // The model learns of the switch from the plan fact at its next step.
        return { plan: await switchPlanMode(session, core.home, active) };
      },
    },
  } satisfies Omit<Capability, 'name'>;
}
