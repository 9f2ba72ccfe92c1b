import { scrubbedEnvironment } from '#infra/sandbox/environment';

export { resolveShell } from '#infra/processes/shell-path';

/** Marks every process of a job, so processes that leave its group can still be found and stopped. */
export const TASK_MARKER_VAR = 'DEFT_TASK_ID';

/**
 * The environment a command runs with when no session sandbox planned it (jobs started directly):
 * the scrubbed environment (no Deft variables or provider keys; programs never wait for a person).
 */
export function commandEnv(shell: string, taskId: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return scrubbedEnvironment({ base, extra: { SHELL: shell, [TASK_MARKER_VAR]: taskId } });
}
