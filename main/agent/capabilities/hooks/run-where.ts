import { homedir } from 'node:os';
import type { CoreContext } from '#contract/capability';
import type { RuleSource } from '#protocol';
import { type HookCommand, type HookRun, runHookCommand } from './run-hook';
import { runHookThere } from './run-hook-there';

/**
 * Run a hook where it belongs. On a folder of this machine: here, in the workspace. On a remote folder: the
 * workspace's own hooks (`.deft/settings*.json` there, active only once that folder is trusted) on the remote
 * machine through its Environment, in the folder there, in that machine's sandbox (the session's `onRemote`) unless
 * the hook says `"sandbox": false`; the user's own hooks (`~/.deft/settings.json`) on this
 * machine, as the user, in the user's home (the workspace's path means nothing here).
 */
export function runHookWhere(core: CoreContext, source: RuleSource, command: Omit<HookCommand, 'cwd'>): Promise<HookRun> {
  const environment = core.place.environment;
  if (environment.kind === 'local') return runHookCommand({ ...command, cwd: core.workspace });
  if (source !== 'user') return runHookThere({ ...command, cwd: core.workspace }, environment, command.sandbox.onRemote);
  return runHookCommand({ ...command, cwd: homedir() });
}
