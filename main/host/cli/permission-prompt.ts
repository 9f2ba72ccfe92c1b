import { isDeepStrictEqual } from 'node:util';
import type { ResolvedCall } from '#contract/calls';
import type { McpToolCaller } from '../../agent/capabilities/mcp/capability';

/**
 * `--permission-prompt-tool NAME`: an MCP tool answers the approvals of a headless run, with Claude Code's contract.
 * It is called with `{tool_name, input, tool_use_id}` and returns text JSON `{"behavior":"allow","updatedInput":{…}}`
 * or `{"behavior":"deny","message":"…"}`. Its allow is a user's "approve once", never more: deny rules, protected
 * paths and the hard walls are decided before it is asked (approvals' `approver`). An updatedInput that differs
 * from the call's input is refused (Deft does not run a rewritten call on an approval). Anything else (not JSON,
 * another shape, an error result, a server that is gone) refuses the call with the reason: it fails closed.
 */
export function promptToolApprover(toolName: string, caller: () => McpToolCaller | null, stderr: (text: string) => void) {
  return async (call: ResolvedCall): Promise<{ allowed: true } | { allowed: false; message: string }> => {
    const refuse = (message: string) => {
      stderr(`deft: ${toolName}: ${call.name} refused: ${message}\n`);
      return { allowed: false as const, message };
    };
    const callTool = caller();
    if (!callTool) return refuse(`the permission prompt tool ${toolName} is not available, so the call was refused.`);
    const answer = await callTool(toolName, { tool_name: call.name, input: call.args, tool_use_id: call.callId }, call.signal);
    if (!answer.ok) return refuse(`the permission prompt tool ${toolName} failed (${answer.reason}), so the call was refused.`);
    if (answer.isError) return refuse(`the permission prompt tool ${toolName} returned an error (${answer.text.slice(0, 500)}), so the call was refused.`);
    let verdict: unknown;
    try {
      verdict = JSON.parse(answer.text);
    } catch {
      return refuse(`the permission prompt tool ${toolName} did not answer JSON, so the call was refused.`);
    }
    const v = verdict as { behavior?: unknown; updatedInput?: unknown; message?: unknown } | null;
    if (v && typeof v === 'object' && v.behavior === 'deny')
      return refuse(typeof v.message === 'string' && v.message.trim() ? v.message.slice(0, 20_000) : `${toolName} denied the call.`);
    if (v && typeof v === 'object' && v.behavior === 'allow') {
      if (v.updatedInput !== undefined && !isDeepStrictEqual(v.updatedInput, call.args))
        return refuse(
          `the permission prompt tool ${toolName} allowed the call with a changed input, which Deft does not run on an approval; the call was refused.`,
        );
      return { allowed: true };
    }
    return refuse(`the permission prompt tool ${toolName} answered neither {"behavior":"allow"} nor {"behavior":"deny"}, so the call was refused.`);
  };
}
