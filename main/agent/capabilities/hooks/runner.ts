import { join } from 'node:path';
import type { HookEventName } from '#protocol';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { type HookFireOptions, type HookInput, type HookOutcome, type SessionHooks, noHookOutcome } from '#contract/hooks';
import { type ConfiguredHook, type HookConfig, hooksFor } from './config';
import { runHookWhere } from './run-where';
import { mergeOutcomes, verdictOf } from './verdict';

/** How a hook's command shows in notices and network approvals: its first line, shortened. */
export function shortCommand(command: string): string {
  const line = command.trim().split('\n')[0]!;
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

function toolOf(input: HookInput): { toolName?: string } {
  return 'tool_name' in input ? { toolName: input.tool_name } : {};
}

/**
 * The hooks of one session: an event runs every active hook that matches it, in parallel, each command
 * once, with the event as JSON on stdin; what they said is merged and what is worth seeing is shown.
 */
export function sessionHooks(core: CoreContext, config: HookConfig, session: SessionHandle): SessionHooks {
  const matching = async (event: HookEventName, toolName?: string): Promise<ConfiguredHook[]> => {
    const { hooks } = await config.load();
    return hooksFor(hooks, event, toolName);
  };
  return {
    has: async (event) => {
      try {
        return (await config.load()).hooks.some((hook) => hook.active && !hook.disabled && hook.event === event);
      } catch {
        return false;
      }
    },
    fire: async (input: HookInput, options: HookFireOptions = {}): Promise<HookOutcome> => {
      try {
        const { toolName } = toolOf(input);
        const hooks = await matching(input.hook_event_name, toolName);
        if (!hooks.length) return noHookOutcome();
        const stdin = JSON.stringify({ session_id: session.id, transcript_path: join(session.dir, 'log.jsonl'), cwd: core.workspace, ...input });
        const env = { DEFT_PROJECT_DIR: core.workspace, DEFT_SESSION_ID: session.id, CLAUDE_PROJECT_DIR: core.workspace };
        const verdicts = await Promise.all(
          hooks.map(async (hook) => {
            const run = await runHookWhere(core, hook.source, {
              command: hook.command,
              input: stdin,
              env,
              timeoutMs: hook.timeoutSec * 1_000,
              sandbox: session.sandbox,
              sandboxed: hook.sandboxed,
              label: `${hook.event} hook: ${shortCommand(hook.command)}`,
              ...(options.turnId ? { turnId: options.turnId } : {}),
              ...(options.callId ? { callId: options.callId } : {}),
              ...(options.signal ? { signal: options.signal } : {}),
            });
            const verdict = verdictOf(hook.event, run);
            if (verdict.notice) {
              session.emit({
                type: 'hook.ran',
                event: hook.event,
                command: shortCommand(hook.command),
                source: hook.source,
                result: verdict.notice.result,
                message: verdict.notice.message,
                ...(options.turnId ? { turnId: options.turnId } : {}),
                ...(options.callId ? { callId: options.callId } : {}),
                ...(toolName ? { toolName } : {}),
              });
            }
            return verdict.outcome;
          }),
        );
        return mergeOutcomes(verdicts);
      } catch {
        // A broken hook setup must never break the turn: it then behaves as if no hook had a say.
        return noHookOutcome();
      }
    },
  };
}
