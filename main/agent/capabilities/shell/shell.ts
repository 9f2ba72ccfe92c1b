import { isExecutable } from '../../infra/platform/executable';

let cachedShell: string | undefined;

/** The shell commands run in: bash when there is one, else /bin/sh. `DEFT_SHELL` overrides. */
export function resolveShell(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEFT_SHELL) return env.DEFT_SHELL;
  if (cachedShell) return cachedShell;
  const candidates = ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash', '/opt/homebrew/bin/bash'];
  for (const dir of (env.PATH ?? '').split(':')) if (dir) candidates.push(`${dir}/bash`);
  cachedShell = candidates.find(isExecutable) ?? '/bin/sh';
  return cachedShell;
}

/** Marks every process of a job, so processes that leave its group can still be found and stopped. */
export const TASK_MARKER_VAR = 'DEFT_TASK_ID';

/**
 * The environment a command runs with: the app's own, plus settings that keep programs from waiting
 * for a person (no pager, no git credential prompt, no editor) or painting colours.
 */
export function commandEnv(shell: string, taskId: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  Object.assign(env, {
    NO_COLOR: '1',
    TERM: 'dumb',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'true',
    PYTHONUNBUFFERED: '1',
    SHELL: shell,
    [TASK_MARKER_VAR]: taskId,
  });
  delete env.FORCE_COLOR;
  return env;
}
