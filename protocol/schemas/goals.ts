import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

// Goals: work the agent pursues turn after turn, within a budget.

/** The schemas of this file, built on first use (goalSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildGoalSchemas = () => {
  /**
   * How a goal's turns run: `usual` — the session's permission mode decides, asking as it always does;
   * `yolo` — the user chose to let it run without asking (deny rules, protected paths and plan review still
   * apply), and the session's own mode comes back when the goal stops.
   */
  const GoalMode = z.enum(['usual', 'yolo']);
  /** A goal the agent pursues turn after turn, with its budget and what it has used. */
  const Goal = z.object({
    id: z.string(),
    objective: z.string(),
    completionCriterion: z.string().optional(),
    status: z.enum(['active', 'paused', 'blocked', 'complete']),
    /** How its turns run (absent: usual). */
    mode: GoalMode.optional(),
    /** Why it is paused, blocked or complete (a summary). */
    reason: z.string().optional(),
    budget: z.object({ turns: z.number().int().optional(), tokens: z.number().int().optional(), timeMs: z.number().int().optional() }),
    used: z.object({ turns: z.number().int(), tokens: z.number().int(), timeMs: z.number().int() }),
    createdAt: z.number(),
    updatedAt: z.number(),
  });
  const GoalAction = z.enum(['pause', 'resume', 'cancel']);
  return { GoalMode, Goal, GoalAction };
};
export type GoalSchemas = ReturnType<typeof buildGoalSchemas>;
export const goalSchemas: () => GoalSchemas = builtOnce(buildGoalSchemas);

// The types of the schemas above (each documented at its schema).
export type GoalMode = z.infer<GoalSchemas['GoalMode']>;
export type Goal = z.infer<GoalSchemas['Goal']>;
export type GoalAction = z.infer<GoalSchemas['GoalAction']>;

/** Shapes of the goal events, shared by events.ts (built with its schema, on first use). */
export const goalEventShapes = () => {
  const { Goal } = goalSchemas();
  return {
    /** The goal changed (null: no goal). */
    'goal.updated': { goal: Goal.nullable() },
  } as const;
};
