import { isAbsolute, resolve } from 'node:path';
import type { ResolvedCall } from '../../contract/calls';

/** Tools that change files and that accept-edits mode runs without asking inside the workspace. */
export const EDIT_TOOLS = new Set(['Write', 'Edit']);

/**
 * Tools that only touch session state or are themselves a conversation with the user: they run in every
 * mode (deny rules still apply). ExitPlanMode and AskUserQuestion wait for the user inside the call.
 */
export const SELF_APPROVED_TOOLS = new Set([
  'EnterPlanMode',
  'ExitPlanMode',
  'AskUserQuestion',
  'TodoList',
  'GetGoal',
  'SetGoalBudget',
  'UpdateGoal',
  // Delegation itself changes nothing: each call a sub-agent makes is decided like the session's own
  // (same mode, rules, session approvals and plan mode), and asks in the same window.
  'Agent',
  'AgentSwarm',
]);

/** Starting a goal lets the agent work turn after turn: it asks unless the mode is yolo. */
export const GOAL_START_TOOL = 'CreateGoal';

/** The files a call writes: its declared write accesses, else (for Write/Edit) its `path` argument. */
export function writtenPaths(call: ResolvedCall, workspace: string): string[] {
  const accesses = call.execution.accesses ?? [];
  const paths = accesses.flatMap((a) => (a.kind === 'file' && (a.operation === 'write' || a.operation === 'readwrite') ? [a.path] : []));
  if (paths.length || !EDIT_TOOLS.has(call.name)) return paths;
  const path = (call.args as { path?: unknown } | null)?.path;
  if (typeof path !== 'string' || !path) return [];
  return [isAbsolute(path) ? path : resolve(workspace, path)];
}
