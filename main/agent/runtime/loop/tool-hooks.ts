import type { ResolvedCall } from '#contract/calls';
import type { SessionHooks } from '#contract/hooks';
import { type ToolResult, errorResult } from '#contract/tool';
import type { ToolCallRequest } from '#contract/model';
import { hookContextMessage } from '../turn/hook-events';

interface Where {
  turnId: string;
  signal: AbortSignal;
}

/** What PreToolUse hooks decided about a call about to be authorized. */
export interface PreToolDecision {
  /** The call is not run: this is its result (a hook denied or blocked it, or stopped the turn). */
  refusal?: ToolResult;
  permission?: ResolvedCall['hookPermission'];
  updatedInput?: Record<string, unknown>;
}

export async function preToolUse(hooks: SessionHooks, call: ToolCallRequest, args: unknown, where: Where): Promise<PreToolDecision> {
  if (!(await hooks.has('PreToolUse'))) return {};
  const outcome = await hooks.fire(
    { hook_event_name: 'PreToolUse', tool_name: call.name, tool_input: args, tool_use_id: call.id },
    { turnId: where.turnId, callId: call.id, signal: where.signal },
  );
  if (outcome.stop) return { refusal: { ...errorResult(`A PreToolUse hook stopped the turn: ${outcome.stop.reason}`), stopTurn: true } };
  const denied = outcome.block?.reason ?? (outcome.permission?.decision === 'deny' ? outcome.permission.reason : undefined);
  if (denied !== undefined) return { refusal: errorResult(`The user's PreToolUse hook refused this ${call.name} call: ${denied}`) };
  const permission =
    outcome.permission && outcome.permission.decision !== 'deny' ? { decision: outcome.permission.decision, reason: outcome.permission.reason } : undefined;
  return { ...(permission ? { permission } : {}), ...(outcome.updatedInput ? { updatedInput: outcome.updatedInput } : {}) };
}

/**
 * PostToolUse (also after a failed call, with its error): a blocking hook's reason and any added context
 * reach the model with the result; `continue: false` ends the turn after this step.
 */
export async function postToolUse(
  hooks: SessionHooks,
  item: { call: ToolCallRequest; args: unknown },
  result: ToolResult,
  text: string,
  where: Where,
): Promise<ToolResult> {
  if (!(await hooks.has('PostToolUse'))) return result;
  const outcome = await hooks.fire(
    {
      hook_event_name: 'PostToolUse',
      tool_name: item.call.name,
      tool_input: item.args,
      tool_use_id: item.call.id,
      tool_response: { output: text, is_error: result.isError === true },
      ...(result.isError ? { error: text } : {}),
    },
    { turnId: where.turnId, callId: item.call.id, signal: where.signal },
  );
  const notes = [result.note ?? ''];
  if (outcome.block) notes.push(`The user's PostToolUse hook says about this result:\n${outcome.block.reason}`);
  const context = hookContextMessage('PostToolUse', outcome.context);
  if (context && typeof context.content === 'string') notes.push(context.content);
  if (outcome.stop) notes.push(`A PostToolUse hook stopped the turn: ${outcome.stop.reason}`);
  const note = notes.filter(Boolean).join('\n');
  return { ...result, ...(note ? { note } : {}), ...(outcome.stop ? { stopTurn: true } : {}) };
}
