import { isExecutable } from '../platform/executable';

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
