import type { HookEventName } from '#protocol';

export type { HookEventName } from '#protocol';

/**
 * What an event tells the user's hook commands, in the field names other agents' hook scripts read
 * (snake_case). The runner adds `session_id`, `transcript_path`, `cwd` and `hook_event_name`.
 */
export type HookInput =
  | { hook_event_name: 'PreToolUse'; tool_name: string; tool_input: unknown; tool_use_id: string }
  | { hook_event_name: 'PostToolUse'; tool_name: string; tool_input: unknown; tool_use_id: string; tool_response: unknown; error?: string }
  | { hook_event_name: 'UserPromptSubmit'; prompt: string }
  | { hook_event_name: 'Stop'; stop_hook_active: boolean }
  /** Fired by the sub-agents capability when a sub-agent finishes (see SessionHooks). */
  | { hook_event_name: 'SubagentStop'; stop_hook_active: boolean; agent_id?: string; agent_type?: string; last_message?: string }
  | { hook_event_name: 'PreCompact'; trigger: 'manual' | 'auto'; custom_instructions: string }
  | { hook_event_name: 'SessionStart'; source: 'startup' | 'resume' | 'compact' }
  | { hook_event_name: 'SessionEnd'; reason: 'exit' | 'deleted' }
  | { hook_event_name: 'Notification'; message: string; notification_type: 'permission_prompt' | 'question' | 'task_finished' | 'network_prompt' };

/** What the hooks of one event decided, merged over every hook that ran. Empty when none ran or none had a say. */
export interface HookOutcome {
  /** `{"continue": false}`: stop what is going on (the prompt, the turn); `reason` is shown to the user. */
  stop?: { reason: string };
  /**
   * Exit code 2, or `{"decision": "block"}`: refuse the tool call / the prompt, continue the turn (Stop),
   * or give the model this feedback (PostToolUse). `reason` is the hooks' stderr or their reason.
   */
  block?: { reason: string };
  /** PreToolUse only: `permissionDecision` (deny beats ask beats allow over all hooks). */
  permission?: { decision: 'allow' | 'deny' | 'ask'; reason: string };
  /** PreToolUse only: the arguments a hook wants the call to run with instead (validated and resolved again). */
  updatedInput?: Record<string, unknown>;
  /** Text for the model (UserPromptSubmit and SessionStart stdout, `additionalContext`), one entry per hook. */
  context: string[];
}

export const noHookOutcome = (): HookOutcome => ({ context: [] });

/** Where an event happens, so its notices land beside it in the transcript. */
export interface HookFireOptions {
  turnId?: string;
  callId?: string;
  /** Aborts the hooks (the turn was stopped): their processes are stopped. */
  signal?: AbortSignal;
}

/**
 * Fire an event's hooks (SessionHandle.hooks). Never rejects: a hook that fails, hangs or prints
 * nonsense is reported to the user and leaves the outcome empty. The runtime fires every event but
 * SubagentStop and Notification; capabilities fire those (the sub-agents capability fires
 * SubagentStop when a sub-agent is about to return its answer, and may continue it with
 * `block.reason` as its next instruction, at most a few times in a row).
 */
export interface SessionHooks {
  fire(input: HookInput, options?: HookFireOptions): Promise<HookOutcome>;
  /** Whether any hook is configured (and in effect) for this event, so callers can skip building its input. */
  has(event: HookEventName): Promise<boolean>;
}

/** A session without hooks (no capability provides them). */
export const noHooks: SessionHooks = { fire: async () => noHookOutcome(), has: async () => false };
