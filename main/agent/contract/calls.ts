import type { PermissionMode } from '#protocol';
import type { SubagentLabel } from './subagents';
import type { ToolExecution, ToolPolicy } from './tool';

/** A call that passed validation and resolution, as the permission layer sees it. */
export interface ResolvedCall {
  callId: string;
  name: string;
  args: unknown;
  execution: ToolExecution;
  /** The tool's policy: how the call is approved. */
  policy: ToolPolicy;
  turnId: string;
  /** Aborts when the turn is stopped, so a decision waiting for the user can give up. */
  signal: AbortSignal;
  /**
   * A PreToolUse hook's say: `allow` counts like an allow rule (never beating a deny rule, an ask rule or a
   * protected path), `ask` makes the call ask whatever the mode. A hook's deny never gets this far.
   */
  hookPermission?: { decision: 'allow' | 'ask'; reason: string };
  /** The sub-agent making the call (absent for the session's own agent): approvals name it. */
  agent?: SubagentLabel;
  /** The workspace the call acts in when it is not the core's (an isolated sub-agent's worktree): approvals judge "inside" by it. */
  workspace?: string;
}

/**
 * Whether a call may run; a refusal's message is what the model reads as the call's result. `grantedMode`:
 * the user approved the call choosing the permission mode the work it starts runs in (a goal started
 * "without asking": yolo); the tool reads it as `ToolRunContext.grantedMode`.
 */
export type Authorization = { allowed: true; grantedMode?: PermissionMode } | { allowed: false; message: string };
