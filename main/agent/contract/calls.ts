import type { SubagentLabel } from './subagents';
import type { ToolExecution } from './tool';

/** A call that passed validation and resolution, as the permission layer sees it. */
export interface ResolvedCall {
  callId: string;
  name: string;
  args: unknown;
  execution: ToolExecution;
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
}

/** Whether a call may run; a refusal's message is what the model reads as the call's result. */
export type Authorization = { allowed: true } | { allowed: false; message: string };
