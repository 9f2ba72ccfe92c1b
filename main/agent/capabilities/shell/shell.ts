import { isExecutable } from '../../infra/platform/executable';
import { scrubbedEnvironment } from '../../infra/sandbox/environment';

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
 * The environment a command runs with when no session sandbox planned it (jobs started directly):
 * the scrubbed environment (no Deft variables or provider keys; programs never wait for a person).
 */
export function commandEnv(shell: string, taskId: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return scrubbedEnvironment({ base, extra: { SHELL: shell, [TASK_MARKER_VAR]: taskId } });
}
