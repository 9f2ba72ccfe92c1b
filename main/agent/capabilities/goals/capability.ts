import { CommandError } from '#contract/errors';
import { modeLeaseSlot } from '#contract/mode-lease';
import type { CapabilityFactory, SessionHandle } from '#contract/capability';
import type { TurnOutcome } from '#contract/capability';
import { createGoalTool } from './tools/create-goal/create-goal';
import { getGoalTool } from './tools/get-goal/get-goal';
import { setGoalBudgetTool } from './tools/set-goal-budget/set-goal-budget';
import { updateGoalTool } from './tools/update-goal/update-goal';
import { budgetExhausted, countingRunningTurn, describeGoal, goalFact, goalView, onLeaseEnded, saveGoal, storedGoal, withStatus } from './state';

function continuationPrompt(session: SessionHandle, now: number) {
  const goal = goalView(storedGoal(session)!, session, now);
  const short = goal.objective.length > 120 ? `${goal.objective.slice(0, 119)}…` : goal.objective;
  return {
    text: `Continue the goal: ${short}`,
    modelText: `<goal-continuation>\n${describeGoal(goal)}\nKeep working toward the goal. When the completion criterion is met, call UpdateGoal with status "complete"; if you cannot go on without the user, call UpdateGoal with status "blocked".\n</goal-continuation>`,
    origin: 'goal' as const,
  };
}

/**
 * Goals: CreateGoal / GetGoal / SetGoalBudget / UpdateGoal, and continuation — while a goal is active,
 * every turn that ends starts the next one, until the goal completes or blocks, its budget (turns,
 * tokens, time) is used up, a turn fails or is stopped, or the user pauses it.
 */
export const goalsCapability: CapabilityFactory = (core) => {
  const continueGoal = (session: SessionHandle) =>
    void session.startTurn(continuationPrompt(session, core.now())).then((turnId) => {
      // Busy means another turn runs: the goal continues when it ends. Otherwise no model is configured.
      const goal = storedGoal(session);
      if (turnId === null && !session.running && goal?.status === 'active') {
        const now = core.now();
        saveGoal(session, withStatus(goal, session, 'paused', 'Paused: the next turn could not start (is a model configured?).', now), now);
      }
    });

  async function afterTurn(session: SessionHandle, outcome: TurnOutcome): Promise<void> {
    const goal = storedGoal(session);
    if (!goal || goal.status !== 'active') return;
    const now = core.now();
    const counted = { ...goal, turns: goal.turns + 1 };
    if (outcome.stopReason === 'cancelled') {
      saveGoal(session, withStatus(counted, session, 'paused', 'Paused: the turn was stopped.', now), now);
      return;
    }
    if (outcome.stopReason === 'error') {
      saveGoal(session, withStatus(counted, session, 'paused', `Paused after an error: ${outcome.error?.message ?? 'the turn failed'}`, now), now);
      return;
    }
    const spent = budgetExhausted(goalView(counted, session, now));
    if (spent) {
      saveGoal(session, withStatus(counted, session, 'blocked', `Stopped: ${spent}.`, now), now);
      return;
    }
    saveGoal(session, counted, now);
    continueGoal(session);
  }

  return {
    name: 'goals',
    tools: (session) => [createGoalTool(session, core), getGoalTool(session, core), setGoalBudgetTool(session, core), updateGoalTool(session, core)],
    // What the goal is and where it stands reaches the model as a fact, said when it changes.
    facts: (session) => [goalFact(session, core.now())],
    onSessionLoaded: (session) => {
      const goal = storedGoal(session);
      // A goal that was active when Deft stopped has no turn running now: wait for the user to resume it.
      if (goal?.status === 'active' && !session.running) {
        const now = core.now();
        saveGoal(session, withStatus(goal, session, 'paused', 'Paused: Deft restarted while the goal was active.', now), now);
      }
    },
    onTurnEnded: afterTurn,
    onStateChanged: (session, key, previous) => {
      if (key === modeLeaseSlot.key) onLeaseEnded(session, previous, core.now());
    },
    commands: {
      setGoalStatus: async ({ sessionId, action }) => {
        const session = await core.session(sessionId);
        const goal = storedGoal(session);
        if (!goal) throw new CommandError('not_found', 'This session has no goal.');
        const now = core.now();
        if (action === 'cancel') {
          saveGoal(session, null, now);
          return { goal: null };
        }
        if (action === 'pause') {
          if (goal.status !== 'active') throw new CommandError('invalid_request', `The goal is ${goal.status}, not active, so it cannot be paused.`);
          return { goal: saveGoal(session, withStatus(countingRunningTurn(goal, session), session, 'paused', 'Paused by the user.', now), now) };
        }
        if (goal.status === 'active') return { goal: goalView(goal, session, now) };
        if (goal.status === 'complete') throw new CommandError('invalid_request', 'The goal is complete. Ask Deft for a new goal instead.');
        const spent = budgetExhausted(goalView(goal, session, now));
        if (spent)
          throw new CommandError(
            'invalid_request',
            `The goal cannot resume: ${spent}. Ask Deft to raise the budget (for example "raise the goal budget to 20 turns"), or cancel the goal.`,
          );
        const view = saveGoal(session, withStatus(goal, session, 'active', undefined, now), now);
        if (!session.running) continueGoal(session);
        return { goal: view };
      },
    },
  };
};
