import { join } from 'node:path';
import type { HookAddInput, HookEventName, HookRef, HookTestResult, RuleSource } from '#protocol';
import type { CoreContext } from '#contract/capability';
import type { HookInput } from '#contract/hooks';
import { CommandError } from '#contract/errors';
import { SettingsEditError, editSettingsFile, objectAt } from '#infra/settings/settings-edit';
import { onThisMachine } from '#infra/settings/settings-file';
import type { HookConfig } from './config';
import { runHookWhere } from './run-where';
import { shortCommand } from './runner';
import { verdictOf } from './verdict';

/** A sample event of each type, as a hook would read it on stdin (the runner's fields added). */
export function sampleEvent(event: HookEventName): HookInput {
  switch (event) {
    case 'PreToolUse':
      return { hook_event_name: event, tool_name: 'Bash', tool_input: { command: 'echo hello', description: 'A sample call' }, tool_use_id: 'test-hook' };
    case 'PostToolUse':
      return { hook_event_name: event, tool_name: 'Bash', tool_input: { command: 'echo hello' }, tool_use_id: 'test-hook', tool_response: 'hello' };
    case 'UserPromptSubmit':
      return { hook_event_name: event, prompt: 'A sample prompt' };
    case 'Stop':
      return { hook_event_name: event, stop_hook_active: false };
    case 'SubagentStop':
      return { hook_event_name: event, stop_hook_active: false, agent_type: 'general-purpose', last_message: 'A sample answer' };
    case 'PreCompact':
      return { hook_event_name: event, trigger: 'manual', custom_instructions: '' };
    case 'SessionStart':
      return { hook_event_name: event, source: 'startup' };
    case 'SessionEnd':
      return { hook_event_name: event, reason: 'exit' };
    case 'Notification':
      return { hook_event_name: event, message: 'A sample notification', notification_type: 'task_finished' };
  }
}

/** Add, disable and test hooks from Settings: commands of the window (the user's clicks), never of the model. */
export function hookManager(core: CoreContext, config: HookConfig, reload: () => Promise<unknown>) {
  /** A workspace's files are written (and its hooks tested) only once the user trusts the folder, and only on this machine. */
  async function checkWorkspace(source: RuleSource, doing: string): Promise<void> {
    if (source === 'user') return;
    if (core.place.environment.kind !== 'local')
      throw new CommandError('invalid_request', `This folder is on another machine; ${doing} is for your own hooks only.`);
    if (!(await config.trust.get()).trusted)
      throw new CommandError('invalid_request', `This folder is not trusted: trust it (Settings → Permissions) before ${doing} its own hooks.`);
  }

  async function edit(source: RuleSource, change: (hooks: Record<string, unknown>, path: string) => void): Promise<void> {
    const path = config.files[source];
    try {
      await editSettingsFile(onThisMachine(path), source === 'user' ? null : core.place, (root) => change(objectAt(root, 'hooks', path), path));
    } catch (error) {
      if (error instanceof SettingsEditError) throw new CommandError(error.code, error.message);
      throw error;
    }
    await reload();
  }

  /** The entry `ref` names, as the file has it now; refused when the file changed under the window. */
  function entryAt(hooks: Record<string, unknown>, ref: HookRef, path: string): Record<string, unknown> {
    const groups = hooks[ref.event];
    const group = Array.isArray(groups) ? (groups[ref.group] as { hooks?: unknown } | undefined) : undefined;
    const entry = group && Array.isArray(group.hooks) ? (group.hooks[ref.index] as Record<string, unknown> | undefined) : undefined;
    if (!entry || typeof entry !== 'object' || entry.command !== ref.command)
      throw new CommandError('not_found', `${path} changed: that ${ref.event} hook is not where it was. Reopen Settings and try again.`);
    return entry;
  }

  async function find(ref: HookRef) {
    const { hooks } = await config.load();
    const hook = hooks.find((h) => !h.plugin && h.source === ref.source && h.event === ref.event && h.group === ref.group && h.index === ref.index);
    if (!hook || hook.command !== ref.command)
      throw new CommandError('not_found', `${config.files[ref.source]} changed: that ${ref.event} hook is not where it was. Reopen Settings and try again.`);
    return hook;
  }

  return {
    add: async (input: HookAddInput): Promise<void> => {
      await checkWorkspace(input.source, 'adding');
      if (input.matcher && input.matcher !== '*') {
        try {
          new RegExp(`^(?:${input.matcher})$`);
        } catch (error) {
          throw new CommandError('invalid_request', `"${input.matcher}" is not a valid regular expression (${(error as Error).message}).`);
        }
      }
      await edit(input.source, (hooks, path) => {
        const groups = hooks[input.event] ?? [];
        if (!Array.isArray(groups)) throw new CommandError('invalid_request', `"hooks.${input.event}" in ${path} must be a list; fix it, then try again.`);
        const entry = { type: 'command', command: input.command, ...(input.timeoutSec ? { timeout: input.timeoutSec } : {}) };
        groups.push({ ...(input.matcher ? { matcher: input.matcher } : {}), hooks: [entry] });
        hooks[input.event] = groups;
      });
    },
    setDisabled: async (ref: HookRef, disabled: boolean): Promise<void> => {
      // Turning a workspace hook off only narrows what runs; turning one on needs the folder's trust.
      if (!disabled) await checkWorkspace(ref.source, 'turning on');
      else if (ref.source !== 'user' && core.place.environment.kind !== 'local')
        throw new CommandError('invalid_request', 'This folder is on another machine; its hooks are not run from here.');
      await edit(ref.source, (hooks, path) => {
        const entry = entryAt(hooks, ref, path);
        if (disabled) entry.disabled = true;
        else delete entry.disabled;
      });
    },
    test: async (ref: HookRef & { sessionId: string }): Promise<HookTestResult> => {
      await checkWorkspace(ref.source, 'testing');
      const hook = await find(ref);
      const session = await core.session(ref.sessionId);
      const sample = sampleEvent(hook.event);
      const input = JSON.stringify({ session_id: session.id, transcript_path: join(session.dir, 'log.jsonl'), cwd: core.workspace, ...sample });
      const run = await runHookWhere(core, hook.source, {
        command: hook.command,
        input,
        env: { DEFT_PROJECT_DIR: core.workspace, DEFT_SESSION_ID: session.id, CLAUDE_PROJECT_DIR: core.workspace },
        timeoutMs: hook.timeoutSec * 1_000,
        sandbox: session.sandbox,
        sandboxed: hook.sandboxed,
        label: `${hook.event} hook test: ${shortCommand(hook.command)}`,
      });
      const { notice } = verdictOf(hook.event, run);
      const cap = (text: string) => (text.length > 20_000 ? `${text.slice(0, 20_000)}…` : text);
      return {
        input: JSON.stringify(JSON.parse(input), null, 2),
        exitCode: run.exitCode,
        stdout: cap(run.stdout),
        stderr: cap(run.stderr),
        timedOut: run.timedOut,
        ...(run.failure ? { failure: run.failure } : {}),
        sandboxed: run.sandboxed,
        decision: notice?.result ?? 'none',
        ...(notice?.message ? { message: notice.message } : {}),
      };
    },
  };
}
