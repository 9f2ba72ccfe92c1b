import { type Environment, EnvironmentError, HELPER_UNAVAILABLE, errorCode } from '#contract/environment';
import { hardenedGitVars, posixHardenedConfig } from '#infra/git/git';
import { runShProcess } from '#infra/environment/sh-process';
import { GitError, type GitPlaces, type GitResult, posixStoreConfig } from './git';

/** The exit code of a remote script when that machine has no git. */
export const NO_GIT_EXIT = 90;

/** A word for a POSIX shell, quoted so that nothing in it is expanded. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The start of every script the store runs on the other machine: the same hardening as infra/git gives a local git
 * (no system or global config or attributes, nothing a repository's config names ever runs, no caller's GIT_*
 * variables, the C locale), the store's places and authorship, and `g`: git with the hardened and the store's
 * settings on its command line. The store's config is the only config file that git reads (GIT_DIR is the store's).
 */
export function prelude(places: GitPlaces | null): string {
  const config = [...posixHardenedConfig(), ...posixStoreConfig()].flatMap((c) => ['-c', shellQuote(c)]).join(' ');
  const vars: Record<string, string> = {
    ...hardenedGitVars('/dev/null'),
    GIT_AUTHOR_NAME: 'Deft',
    GIT_AUTHOR_EMAIL: 'checkpoints@deft.invalid',
    GIT_COMMITTER_NAME: 'Deft',
    GIT_COMMITTER_EMAIL: 'checkpoints@deft.invalid',
    ...(places ? { GIT_DIR: places.gitDir, GIT_WORK_TREE: places.workTree, GIT_INDEX_FILE: places.indexFile } : {}),
  };
  return [
    // Whatever the login environment set for git (GIT_DIR, GIT_EXEC_PATH, GIT_EXTERNAL_DIFF…) or the loader, gone.
    `for v in $(env | sed -n 's/^\\(GIT_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset "$v"; done`,
    'unset LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT',
    ...Object.entries(vars).map(([name, value]) => `export ${name}=${shellQuote(value)}`),
    `command -v git >/dev/null 2>&1 || exit ${NO_GIT_EXIT}`,
    `g() { git ${config} "$@"; }`,
  ].join('\n');
}

export interface ScriptOptions {
  input?: string | Buffer;
  okCodes?: readonly number[];
}

interface Ran {
  out: Buffer;
  err: Buffer;
  exit: { code: number | null; error?: { message: string } };
}

async function runOnHelper(environment: Environment, script: string, args: readonly string[], cwd: string, options: ScriptOptions): Promise<Ran> {
  if (!environment.runScript) throw new EnvironmentError(HELPER_UNAVAILABLE, 'No helper shell here.');
  const result = await environment.runScript({ script, args, cwd, ...(options.input !== undefined ? { input: options.input } : {}) });
  return { out: result.stdout, err: result.stderr, exit: { code: result.code } };
}

function runAsProcess(environment: Environment, script: string, args: readonly string[], cwd: string, options: ScriptOptions): Promise<Ran> {
  return runShProcess(environment, { script, name: 'deft-checkpoints', args, cwd, ...(options.input !== undefined ? { input: options.input } : {}) });
}

/**
 * Run a script on the environment's machine, in `cwd`, after the prelude, with `args` as its `$1…` (each argument
 * small: a command line there has a size limit; lists go on stdin), on the connection's helper shell when there is one
 * (no login shell started per script), else as a process. Fails with a GitError carrying stderr.
 */
export async function runScript(
  environment: Environment,
  places: GitPlaces | null,
  cwd: string,
  body: string,
  args: readonly string[] = [],
  options: ScriptOptions = {},
): Promise<GitResult> {
  const script = `${prelude(places)}\n${body}`;
  const { out, err, exit } = await runOnHelper(environment, script, args, cwd, options).catch((error: unknown) =>
    // The helper shell could not serve it (none here, it died, or it would not start): a process of its own.
    errorCode(error) === HELPER_UNAVAILABLE ? runAsProcess(environment, script, args, cwd, options) : Promise.reject(error),
  );
  if (exit.error) throw new GitError(`The checkpoint store on ${environment.label} could not be reached: ${exit.error.message}`, null, exit.error.message);
  const code = exit.code ?? -1;
  if (!(options.okCodes ?? [0]).includes(code)) {
    const text = err.toString('utf8').trim();
    if (code === NO_GIT_EXIT) throw new GitError(`git was not found on ${environment.label}.`, code, text);
    throw new GitError(`git on ${environment.label} failed (exit ${code})${text ? `: ${text.split('\n').slice(-3).join(' ')}` : ''}`, code, text);
  }
  return { stdout: out, stderr: err.toString('utf8'), exitCode: code };
}

/** One git command there (the store's places, the hardened settings). */
export function runRemoteGit(environment: Environment, places: GitPlaces, args: readonly string[], options: ScriptOptions = {}): Promise<GitResult> {
  return runScript(environment, places, places.workTree, 'g "$@"', args, options);
}
