import { randomBytes } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { type PlanState, approvalSchemas } from '#protocol/schemas/approvals';
import type { SessionHandle } from '#contract/capability';
import { type Fact, reminder } from '#contract/facts';
import { stateSlot } from '#contract/state';

/** The session's plan mode (null: never turned on). */
export const planSlot = stateSlot<PlanState | null>('plan', () => approvalSchemas().PlanState.nullable(), null);

export function planOf(session: SessionHandle): PlanState | null {
  return session.state(planSlot).get();
}

/** Persist a session's plan state and tell the UI. */
export function setPlan(session: SessionHandle, plan: PlanState): void {
  session.state(planSlot).set(plan);
  session.emit({ type: 'plan.mode.changed', plan });
}

const ADJECTIVES = [
  'amber',
  'brisk',
  'calm',
  'deft',
  'eager',
  'fair',
  'gentle',
  'hardy',
  'keen',
  'lucid',
  'merry',
  'nimble',
  'quiet',
  'steady',
  'swift',
  'vivid',
];
const NOUNS = [
  'falcon',
  'harbor',
  'lantern',
  'meadow',
  'otter',
  'pine',
  'river',
  'summit',
  'thistle',
  'willow',
  'comet',
  'beacon',
  'canyon',
  'heron',
  'maple',
  'quarry',
];

/**
 * A fresh plan: a readable id and its file under `<home>/plans/` (outside the workspace, so planning
 * never touches the project). The folder is created and its real path used, so the file tools' canonical
 * paths compare equal to it.
 */
export async function newPlan(home: string): Promise<PlanState> {
  const bytes = randomBytes(3);
  const planId = `${ADJECTIVES[bytes[0]! % ADJECTIVES.length]}-${NOUNS[bytes[1]! % NOUNS.length]}-${bytes[2]!.toString(16).padStart(2, '0')}`;
  const dir = join(home, 'plans');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return { active: true, planId, path: join(await realpath(dir), `${planId}.md`) };
}

/** Turn plan mode on (a new plan file) or off, telling the UI; the caller tells the model. */
export async function switchPlanMode(session: SessionHandle, home: string, active: boolean): Promise<PlanState> {
  const current = planOf(session);
  if (active && current?.active) return current;
  if (!active && !current?.active) return current ?? { active: false };
  const plan = active ? await newPlan(home) : { ...current!, active: false };
  setPlan(session, plan);
  return plan;
}

/** The workflow the model follows once plan mode is on. */
export function planWorkflow(path: string): string {
  return [
    `Plan mode is on. Plan file: ${path}`,
    '1. Investigate with read-only tools only; change nothing else.',
    '2. Write the plan to the plan file with Write (refine it with Edit): the goal, the files to change and how, risks, and how to verify the result. Only this file may be written while planning.',
    '3. Call ExitPlanMode to show the plan to the user. If they ask for revisions, update the file and call ExitPlanMode again. Do not start implementing before they approve.',
  ].join('\n');
}

/** Plan mode as a fact the model is kept up to date on (the user can switch it in the window at any time). */
export function planFact(plan: PlanState | null): Fact {
  return {
    key: 'plan',
    text: plan?.active && plan.path ? reminder(`The user wants a plan before any change.\n${planWorkflow(plan.path)}`) : null,
    gone: reminder('Plan mode is off. You may change files again, within the permission mode.'),
  };
}
