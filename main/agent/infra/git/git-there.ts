import { type Environment, HELPER_UNAVAILABLE, errorCode } from '#contract/environment';
import { runShProcess } from '../environment/sh-process';
import { type GitCall, GitError, type GitResult, hardenedArgv, hardenedGitVars, posixHardenedConfig } from './git';

/** The exit code of the script when that machine has no git. */
const NO_GIT_EXIT = 90;

/** A word for a POSIX shell, quoted so that nothing in it is expanded. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The script every git call there runs in: runGit's hardening, spelt for a POSIX machine — whatever the login
 * environment set for git (GIT_DIR, GIT_EXEC_PATH, GIT_EXTERNAL_DIFF…) or the loader is unset, no system or global
 * config or attributes, the C locale, no prompt or pager; then only the call's own GIT_* variables. The hardened
 * settings (posixHardenedConfig: no fsmonitor, hooks, ssh command, credential helper, external diff, transport…)
 * are on git's command line, which beats every config file, exactly as here.
 */
function script(gitEnv: Readonly<Record<string, string>>): string {
  const vars: Record<string, string> = { ...hardenedGitVars('/dev/null') };
  for (const [name, value] of Object.entries(gitEnv)) if (/^GIT_[A-Z0-9_]+$/.test(name)) vars[name] = value;
  return [
    `for v in $(env | sed -n 's/^\\(GIT_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset "$v"; done`,
    'unset LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT',
    ...Object.entries(vars).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
    `command -v git >/dev/null 2>&1 || exit ${NO_GIT_EXIT}`,
    'exec git "$@"',
  ].join('\n');
}

async function asProcess(environment: Environment, text: string, argv: readonly string[], call: GitCall): Promise<{ out: Buffer; err: Buffer; code: number }> {
  const { out, err, exit } = await runShProcess(environment, {
    script: text,
    name: 'deft-git',
    args: argv,
    cwd: call.cwd,
    ...(call.input !== undefined ? { input: call.input } : {}),
    ...(call.signal ? { signal: call.signal } : {}),
  });
  if (exit.error) throw new GitError(`git on ${environment.label} could not be started: ${exit.error.message}`, null, exit.error.message);
  return { out, err, code: exit.code ?? -1 };
}

/**
 * runGit on the environment's machine: the same hardened argv (`hardenedArgv` with the POSIX spelling of the settings,
 * so a caller's setting that would undo them is refused the same way), run by that machine's git in `call.cwd` (a
 * path there), on the connection's helper shell when there is one, else as a process. Fails with a GitError carrying
 * stderr, as runGit does.
 */
export async function runGitThere(environment: Environment, call: GitCall): Promise<GitResult> {
  const argv = hardenedArgv(call.args, call.config, posixHardenedConfig());
  const text = script(call.gitEnv ?? {});
  let ran: { out: Buffer; err: Buffer; code: number };
  try {
    if (!environment.runScript) throw Object.assign(new Error('no helper'), { code: HELPER_UNAVAILABLE });
    const result = await environment.runScript({
      script: text,
      args: argv,
      cwd: call.cwd,
      ...(call.input !== undefined ? { input: call.input } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    ran = { out: result.stdout, err: result.stderr, code: result.code };
  } catch (error) {
    if (errorCode(error) !== HELPER_UNAVAILABLE) throw new GitError(`git on ${environment.label} could not be run: ${(error as Error).message}`, null, '');
    ran = await asProcess(environment, text, argv, call);
  }
  const stderr = ran.err.toString('utf8');
  if (ran.code === NO_GIT_EXIT) throw new GitError(`git was not found on ${environment.label}.`, ran.code, stderr);
  if (!(call.okCodes ?? [0]).includes(ran.code))
    throw new GitError(
      `git ${call.args[0] ?? ''} on ${environment.label} failed (exit ${ran.code}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`,
      ran.code,
      stderr,
    );
  return { stdout: ran.out, stderr, exitCode: ran.code };
}
