import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type GitResult, runGit as runHardenedGit, spawnGit as spawnHardenedGit } from '#infra/git/git';

export { GitError, type GitResult, gitVersion } from '#infra/git/git';

/** Where the store's git runs: its own object store, its own index, the workspace as the work tree. */
export interface GitPlaces {
  gitDir: string;
  workTree: string;
  indexFile: string;
}

/**
 * The store's own settings, on top of the hardening every git call of Deft gets (infra/git: no hooks,
 * no file-system monitor, no global or system config or attributes): no ignore files from the user's
 * home, no automatic gc, no reflogs. Filters and line-ending conversions are turned off by the store's
 * `info/attributes` (which beats every `.gitattributes` in the work tree) and by the absence of any
 * filter driver in the only config git reads (the store's own).
 */
const STORE_CONFIG = [
  'core.excludesFile=' + (process.platform === 'win32' ? 'NUL' : '/dev/null'),
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
  'safe.directory=*',
  'advice.detachedHead=false',
];

/** STORE_CONFIG as a POSIX machine needs it (a store on another machine: its git, its null device). */
export function posixStoreConfig(): string[] {
  return STORE_CONFIG.map((setting) =>
    setting.startsWith('core.excludesFile=') ? 'core.excludesFile=/dev/null' : setting.startsWith('core.symlinks=') ? 'core.symlinks=true' : setting,
  );
}

/** The store's places and fixed authorship, as git variables. */
function placesEnv(places: GitPlaces | null): Record<string, string> {
  const env: Record<string, string> = {
    GIT_AUTHOR_NAME: 'Deft',
    GIT_AUTHOR_EMAIL: 'checkpoints@deft.invalid',
    GIT_COMMITTER_NAME: 'Deft',
    GIT_COMMITTER_EMAIL: 'checkpoints@deft.invalid',
  };
  if (places) Object.assign(env, { GIT_DIR: places.gitDir, GIT_WORK_TREE: places.workTree, GIT_INDEX_FILE: places.indexFile });
  return env;
}

export interface GitRunOptions {
  /** Written to git's stdin (then closed). */
  input?: string | Buffer;
  /** Exit codes that are not failures (default: only 0). */
  okCodes?: readonly number[];
  signal?: AbortSignal;
  /**
   * Let git write what it learnt to the store's own index (GIT_OPTIONAL_LOCKS, off for every other git of Deft): a
   * `status` then keeps the files' stat data it refreshed and the untracked cache (each folder's listing, checked by
   * its time), so the next one neither hashes those files again nor reads every folder. Only for the store's index,
   * which nothing but the store's git (under the store's lock) writes.
   */
  writeIndex?: boolean;
}

/** Run git in the store's places (or with none: `init`, `--version`). Fails with a GitError carrying stderr. */
export function runGit(places: GitPlaces | null, args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
  const { writeIndex, ...rest } = options;
  const gitEnv = { ...placesEnv(places), ...(writeIndex && places ? { GIT_OPTIONAL_LOCKS: '1' } : {}) };
  return runHardenedGit({ cwd: places?.workTree ?? process.cwd(), args, config: STORE_CONFIG, gitEnv, ...rest });
}

/** Start a long-running git in the store's places with the same settings (e.g. `cat-file --batch`). */
export function spawnGit(places: GitPlaces, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawnHardenedGit({ cwd: places.workTree, args, config: STORE_CONFIG, gitEnv: placesEnv(places) });
}

/** Split NUL-terminated output into its records. */
export function splitZ(output: Buffer | string): string[] {
  const text = typeof output === 'string' ? output : output.toString('utf8');
  const parts = text.split('\0');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}
