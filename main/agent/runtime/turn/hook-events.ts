import type { SessionHandle, TurnPrompt } from '#contract/capability';
import { reminder } from '#contract/facts';
import type { HookEventName } from '#contract/hooks';
import type { ModelMessage } from '#contract/model';

type UserMessage = Extract<ModelMessage, { role: 'user' }>;

// Where the runtime fires the user's hooks (contract/hooks.ts) and what it does with their answers.
// Tool events are fired by the loop (loop/tool-hooks.ts); SubagentStop and Notification by capabilities.

/** The model reads what hooks add as a marked block, so it never mistakes it for the user's own words. */
export function hookContextMessage(event: HookEventName, texts: readonly string[]): UserMessage | null {
  const body = texts.map((t) => t.trim()).filter(Boolean);
  if (!body.length) return null;
  return { role: 'user', content: reminder(`Context added by the user's ${event} hook:\n${body.join('\n\n')}`) };
}

/** Prompts a person wrote (or scheduled): these go through UserPromptSubmit; the agent's own follow-ups do not. */
const SUBMITTED = new Set<TurnPrompt['origin']>(['user', 'skill', 'cron']);

/**
 * UserPromptSubmit: a blocking hook (exit 2, decision block, continue false) keeps the prompt from the
 * model — the transcript shows the hook's reason; what hooks print becomes context after the prompt.
 */
export async function promptHooks(
  handle: SessionHandle,
  prompt: TurnPrompt,
  turnId: string,
  signal: AbortSignal,
): Promise<{ blocked: boolean; context: UserMessage | null }> {
  if (!SUBMITTED.has(prompt.origin)) return { blocked: false, context: null };
  const outcome = await handle.hooks.fire({ hook_event_name: 'UserPromptSubmit', prompt: prompt.modelText ?? prompt.text }, { turnId, signal });
  if (outcome.block || outcome.stop) return { blocked: true, context: null };
  return { blocked: false, context: hookContextMessage('UserPromptSubmit', outcome.context) };
}

/** SessionStart (a new session, one opened again, after a compaction): what the hooks print is context for the model. */
export async function sessionStartHooks(handle: SessionHandle, source: 'startup' | 'resume' | 'compact'): Promise<UserMessage | null> {
  const outcome = await handle.hooks.fire({ hook_event_name: 'SessionStart', source });
  return hookContextMessage('SessionStart', outcome.context);
}

/** How many times in a row Stop hooks may send the agent back to work before the turn ends anyway. */
export const MAX_STOP_CONTINUATIONS = 3;

/**
 * Stop: the model gave its final answer. A blocking hook sends it back to work with the hook's reason as
 * its instruction — at most MAX_STOP_CONTINUATIONS times in a row, so a hook cannot keep a turn alive forever.
 * Resolves to the message to continue with, or null to end the turn.
 */
export async function stopHooks(handle: SessionHandle, turnId: string, continued: number, signal: AbortSignal): Promise<string | null> {
  if (continued >= MAX_STOP_CONTINUATIONS) {
    if (await handle.hooks.has('Stop')) {
      handle.emit({
        type: 'error',
        code: 'internal',
        turnId,
        message: `Stop hooks sent the agent back to work ${continued} times in a row; the turn ends here.`,
      });
    }
    return null;
  }
  const outcome = await handle.hooks.fire({ hook_event_name: 'Stop', stop_hook_active: continued > 0 }, { turnId, signal });
  if (signal.aborted || outcome.stop || !outcome.block) return null;
  return reminder(`A Stop hook asked you to continue before ending your turn:\n${outcome.block.reason}`);
}
