import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { devNull } from 'node:os';

/** Where the store's git runs: its own object store, its own index, the workspace as the work tree. */
export interface GitPlaces {
  gitDir: string;
  workTree: string;
  indexFile: string;
}

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * Settings passed on every command line, so nothing a repository or a user config holds can change
 * them: no hooks, no file-system monitor, no attribute or ignore files from the user's home, no
 * automatic gc, no reflogs. Filters and line-ending conversions are turned off by the store's
 * `info/attributes` (which beats every `.gitattributes` in the work tree) and by the absence of any
 * filter driver in the only config git reads (the store's own).
 */
const SAFE_CONFIG = [
  'core.hooksPath=' + devNull,
  'core.fsmonitor=false',
  'core.attributesFile=' + devNull,
  'core.excludesFile=' + devNull,
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.symlinks=' + (process.platform === 'win32' ? 'false' : 'true'),
  'core.fileMode=true',
  'core.quotePath=false',
  'core.untrackedCache=true',
  'core.splitIndex=false',
  'core.sparseCheckout=false',
  'core.logAllRefUpdates=false',
  'core.looseCompression=1',
  'status.showUntrackedFiles=all',
  'status.renames=false',
  'diff.renames=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'safe.directory=*',
  'advice.detachedHead=false',
];

/**
 * The environment git runs with: none of the caller's GIT_* variables (a hook or a terminal inside a
 * repository may have set GIT_DIR), no system or global config, no system attributes, fixed authorship.
 */
function gitEnv(places: GitPlaces | null): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_') && value !== undefined) env[key] = value;
  Object.assign(env, {
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_AUTHOR_NAME: 'Deft',
    GIT_AUTHOR_EMAIL: 'checkpoints@deft.invalid',
    GIT_COMMITTER_NAME: 'Deft',
    GIT_COMMITTER_EMAIL: 'checkpoints@deft.invalid',
  });
  if (places) Object.assign(env, { GIT_DIR: places.gitDir, GIT_WORK_TREE: places.workTree, GIT_INDEX_FILE: places.indexFile });
  return env;
}

export interface GitRunOptions {
  /** Written to git's stdin (then closed). */
  input?: string | Buffer;
  /** Exit codes that are not failures (default: only 0). */
  okCodes?: readonly number[];
  signal?: AbortSignal;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** Run git in the store's places (or with none: `init`, `--version`). Fails with a GitError carrying stderr. */
export function runGit(places: GitPlaces | null, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const argv = [...SAFE_CONFIG.flatMap((c) => ['-c', c]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(gitBinary(), argv, {
      cwd: places?.workTree ?? process.cwd(),
      env: gitEnv(places),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitError(`git could not be started: ${error.message}`, null, '')));
    // A git that exits early (an error) closes its stdin; the write error is reported through the exit code.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
      if ((options.okCodes ?? [0]).includes(exitCode)) resolve({ stdout: Buffer.concat(out), stderr, exitCode });
      else reject(new GitError(`git ${args[0]} failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`, exitCode, stderr));
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Start a long-running git in the store's places with the same safe settings (e.g. `cat-file --batch`). */
export function spawnGit(places: GitPlaces, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(gitBinary(), [...SAFE_CONFIG.flatMap((c) => ['-c', c]), ...args], { cwd: places.workTree, env: gitEnv(places), stdio: ['pipe', 'pipe', 'pipe'] });
}

/** `DEFT_GIT` or `git` on PATH. */
export function gitBinary(): string {
  return process.env.DEFT_GIT?.trim() || 'git';
}

let version: Promise<string | null> | undefined;

/** git's version ("2.39.5"), or null when git cannot be run. Asked once per process. */
export function gitVersion(): Promise<string | null> {
  version ??= runGit(null, ['--version']).then(
    (r) => /(\d+\.\d+(?:\.\d+)?)/.exec(r.stdout.toString())?.[1] ?? null,
    () => null,
  );
  return version;
}

/** Split NUL-terminated output into its records. */
export function splitZ(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8');
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
