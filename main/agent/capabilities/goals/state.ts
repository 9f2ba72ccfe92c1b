import { formatDuration } from '#protocol/helpers/units';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { GoalMode } from '#protocol';
import { type Goal, goalSchemas } from '#protocol/schemas/goals';
import { builtOnce } from '#protocol/helpers/built-once';
import { type Fact, reminder } from '#contract/facts';
import type { SessionHandle } from '#contract/capability';
import { stateSlot } from '#contract/state';
import { type ModeLease, modeLeaseSlot } from '#contract/mode-lease';

/** Without a turn budget a goal still stops after this many turns, so a goal can never run unattended forever. */
export const DEFAULT_TURN_CAP = 50;

/** A goal as persisted: the public fields plus what is needed to count tokens and time only while it is active. */
export interface StoredGoal extends Omit<Goal, 'used'> {
  turns: number;
  /** Tokens and time counted during earlier active stretches. */
  tokens: number;
  timeMs: number;
  /** Session token total and clock when the current active stretch began (null unless active). */
  tokenMark: number | null;
  activeSince: number | null;
}

const storedGoalSchema = builtOnce(() =>
  goalSchemas().Goal.omit({ used: true }).extend({
    turns: z.number(),
    tokens: z.number(),
    timeMs: z.number(),
    tokenMark: z.number().nullable(),
    activeSince: z.number().nullable(),
  }),
);

/** The session's goal (null: none). */
export const goalSlot = stateSlot<StoredGoal | null>('goal', () => storedGoalSchema().nullable(), null);

const totalTokens = (session: SessionHandle) => {
  const usage = session.usage();
  return usage.inputTokens + usage.outputTokens;
};

export function storedGoal(session: SessionHandle): StoredGoal | null {
  return session.state(goalSlot).get();
}

/** The public view, with tokens and time of the running stretch included. */
export function goalView(goal: StoredGoal, session: SessionHandle, now: number): Goal {
  const active = goal.status === 'active';
  const tokens = goal.tokens + (active && goal.tokenMark !== null ? Math.max(0, totalTokens(session) - goal.tokenMark) : 0);
  const timeMs = goal.timeMs + (active && goal.activeSince !== null ? Math.max(0, now - goal.activeSince) : 0);
  const { turns, tokenMark: _mark, activeSince: _since, tokens: _tokens, timeMs: _time, ...rest } = goal;
  return { ...rest, used: { turns, tokens, timeMs } };
}

export function newGoal(session: SessionHandle, objective: string, completionCriterion: string | undefined, mode: GoalMode, now: number): StoredGoal {
  return {
    id: `goal-${randomUUID().slice(0, 8)}`,
    objective,
    ...(completionCriterion ? { completionCriterion } : {}),
    status: 'active',
    ...(mode === 'yolo' ? { mode } : {}),
    budget: {},
    turns: 0,
    tokens: 0,
    timeMs: 0,
    tokenMark: totalTokens(session),
    activeSince: now,
    createdAt: now,
    updatedAt: now,
  };
}

/** The same goal with a new status: the active stretch's tokens and time are banked when it stops, and a new stretch starts when it resumes. */
export function withStatus(goal: StoredGoal, session: SessionHandle, status: Goal['status'], reason: string | undefined, now: number): StoredGoal {
  const view = goalView(goal, session, now);
  const next: StoredGoal = { ...goal, status, tokens: view.used.tokens, timeMs: view.used.timeMs, tokenMark: null, activeSince: null, updatedAt: now };
  if (status === 'active') {
    next.tokenMark = totalTokens(session);
    next.activeSince = now;
  }
  if (reason) next.reason = reason;
  else delete next.reason;
  return next;
}

/**
 * The goal with the running turn counted, when it stops while a turn runs (the model marks it complete
 * or blocked, the user pauses it): that turn worked on it, and no later turn-end will count it.
 */
export function countingRunningTurn(goal: StoredGoal, session: SessionHandle): StoredGoal {
  return goal.status === 'active' && session.running ? { ...goal, turns: goal.turns + 1 } : goal;
}

const GOAL_LEASE: ModeLease = { mode: 'yolo', holder: 'goal', reason: 'while the goal runs (started without asking)', endReason: 'the goal stopped' };

/**
 * Persist and announce a goal (null clears it). A goal started without asking holds yolo while it is
 * active (contract/mode-lease.ts): a pause, a block, completion or cancelling gives the session's own mode
 * back, a resume takes yolo again.
 */
export function saveGoal(session: SessionHandle, goal: StoredGoal | null, now: number): Goal | null {
  session.state(goalSlot).set(goal);
  const lease = session.state(modeLeaseSlot);
  const held = lease.get()?.holder === 'goal';
  const wanted = goal?.status === 'active' && goal.mode === 'yolo';
  if (wanted && !held && !lease.get()) lease.set(GOAL_LEASE);
  else if (!wanted && held) lease.set(null);
  const view = goal ? goalView(goal, session, now) : null;
  session.emit({ type: 'goal.updated', goal: view });
  return view;
}

/**
 * The user switched the permission mode while the goal held yolo (that ends the lease): the goal goes on
 * in the mode they chose, and a resume does not take yolo back.
 */
export function onLeaseEnded(session: SessionHandle, previous: unknown, now: number): void {
  if ((previous as ModeLease | null | undefined)?.holder !== 'goal' || session.state(modeLeaseSlot).get()) return;
  const goal = storedGoal(session);
  if (goal?.mode !== 'yolo' || goal.status !== 'active') return;
  const { mode: _mode, ...usual } = goal;
  saveGoal(session, { ...usual, updatedAt: now }, now);
}

/** Why the goal's budget is used up, or null while there is budget left. */
export function budgetExhausted(goal: Goal): string | null {
  const { budget, used } = goal;
  const turns = budget.turns ?? DEFAULT_TURN_CAP;
  if (used.turns >= turns) {
    return budget.turns === undefined
      ? `it ran ${used.turns} turns, the limit for a goal without a turn budget (SetGoalBudget sets one)`
      : `its budget of ${turns} turn${turns === 1 ? '' : 's'} is used up`;
  }
  if (budget.tokens !== undefined && used.tokens >= budget.tokens) return `its budget of ${budget.tokens.toLocaleString('en-US')} tokens is used up`;
  if (budget.timeMs !== undefined && used.timeMs >= budget.timeMs) return `its time budget of ${formatDuration(budget.timeMs)} is used up`;
  return null;
}

/** One paragraph for the model: objective, criterion, status and budget used. */
export function describeGoal(goal: Goal): string {
  const budget = goal.budget;
  const parts = [
    `turns ${goal.used.turns}/${budget.turns ?? `${DEFAULT_TURN_CAP} (default cap)`}`,
    `tokens ${goal.used.tokens.toLocaleString('en-US')}${budget.tokens !== undefined ? `/${budget.tokens.toLocaleString('en-US')}` : ''}`,
    `time ${formatDuration(goal.used.timeMs)}${budget.timeMs !== undefined ? `/${formatDuration(budget.timeMs)}` : ''}`,
  ];
  return [
    `Objective: ${goal.objective}`,
    ...(goal.completionCriterion ? [`Completion criterion: ${goal.completionCriterion}`] : []),
    `Status: ${goal.status}${goal.reason ? ` (${goal.reason})` : ''}`,
    `Used: ${parts.join(', ')}`,
  ].join('\n');
}

/** The budget's limits in words (what has been used changes every step, so it is not part of the goal fact). */
export function describeBudget(budget: Goal['budget']): string {
  const parts = [
    budget.turns !== undefined ? `${budget.turns} turn${budget.turns === 1 ? '' : 's'}` : `${DEFAULT_TURN_CAP} turns (the default cap)`,
    ...(budget.tokens !== undefined ? [`${budget.tokens.toLocaleString('en-US')} tokens`] : []),
    ...(budget.timeMs !== undefined ? [formatDuration(budget.timeMs)] : []),
  ];
  return parts.join(', ');
}

const CANCELLED = reminder('There is no goal any more: the user cancelled it. Stop working toward it.');

/**
 * The goal as a fact the model is kept up to date on: what it is, its budget and its status, with what
 * to do about it. Said when it changes (a pause, a resume, a budget, a block), not at every step.
 */
export function goalFact(session: SessionHandle, now: number): Fact {
  const stored = storedGoal(session);
  if (!stored) return { key: 'goal', mainAgentOnly: true, text: null, gone: CANCELLED };
  const goal = goalView(stored, session, now);
  const lines = [
    `Objective: ${goal.objective}`,
    ...(goal.completionCriterion ? [`Completion criterion: ${goal.completionCriterion}`] : []),
    `Budget: ${describeBudget(goal.budget)}`,
  ];
  const reason = goal.reason ? ` (${goal.reason})` : '';
  const spent = goal.status === 'active' ? budgetExhausted(goal) : null;
  const status: Record<Goal['status'], string> = {
    active: spent
      ? `The goal's budget is used up (${spent}): wrap up now, tell the user where things stand, and stop.`
      : 'The goal is active: when this turn ends Deft starts the next one itself. Keep working toward it; call UpdateGoal with "complete" when the completion criterion is met, or "blocked" when you cannot go on without the user.',
    paused: `The goal is paused${reason}. Finish the step you are on, then stop; no more turns start for it until the user resumes it.`,
    blocked: `The goal is blocked${reason}; no more turns start for it. Tell the user what is needed to go on.`,
    complete: `The goal is complete${reason}; no more turns start for it.`,
  };
  return { key: 'goal', mainAgentOnly: true, text: reminder(`Goal (${goal.status}):\n${lines.join('\n')}\n${status[goal.status]}`), gone: CANCELLED };
}
