import { posix } from 'node:path';
import { type Environment, isMissing } from '#contract/environment';
import { runThere } from '../sandbox/remote-facts';
import { hardenedGitVars, posixHardenedConfig } from './git';

/**
 * Git there, asked for the top of the repository: with none of the login environment's GIT_* variables, no system or
 * global config, nothing a repository's config names run (the hardened settings), never above the home folder there
 * (GIT_CEILING_DIRECTORIES) and, as git does by default, not across file systems nor into a repository another user
 * owns (safe.directory). Nothing printed when there is no git, no repository, or git refuses.
 */
const SCRIPT = `for v in $(env | sed -n 's/^\\(GIT_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset "$v"; done
unset LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT
command -v git >/dev/null 2>&1 || exit 0
cd "$1" 2>/dev/null || exit 0
shift
GIT_CEILING_DIRECTORIES=$HOME exec env "$@" 2>/dev/null`;

/**
 * The top of the repository `start` (a real path on the environment's machine) is in, found there in one round trip
 * by that machine's git, by the rules findRepositoryRoot keeps here: `start` itself or a folder above it, never the
 * home folder or above unless `start` is it. Null when there is none (or no git there).
 */
export async function findRepositoryRootThere(environment: Environment, start: string): Promise<string | null> {
  // No `.git` in `start` nor in any folder git would look in above it: no repository, and no process started there.
  if ((await nearestDotGit(environment, start)) === null) return null;
  return gitTopThere(environment, start);
}

/**
 * The top of the project a folder there is in, for its instruction files (AGENTS.md and the like from the top down):
 * the repository's top found as findRepositoryRootThere finds it, else the folder itself. Where git's answer cannot
 * be other than the folder — no `.git` above it (nor in it), or one in the folder itself (a checkout, a worktree) —
 * git is not run (a text-only turn then starts no process there). A `.git` in the folder that git would not take (an
 * invalid one) answers the folder, where git might have gone on up: never more instruction files than git's answer.
 */
export async function projectRootThere(environment: Environment, start: string): Promise<string> {
  const nearest = await nearestDotGit(environment, start);
  if (nearest === null || nearest === start) return start;
  // A `.git` above the folder (or none could be told): git says whether that is the top it is under.
  return (await gitTopThere(environment, start)) ?? start;
}

/** What nearestDotGit answers when it cannot tell. */
const UNKNOWN = Symbol('unknown');

/**
 * The nearest folder from `start` up with a `.git` entry (a folder, file or anything) among those git's search
 * looks in (below the home folder there when `start` is under it, GIT_CEILING_DIRECTORIES), all asked at once over the
 * file channel (one round trip); null when none has one; UNKNOWN when it cannot be told (an error other than
 * "missing", a relative path): git is asked then.
 */
async function nearestDotGit(environment: Environment, start: string): Promise<string | null | typeof UNKNOWN> {
  if (!posix.isAbsolute(start)) return UNKNOWN;
  const home = environment.home.replace(/\/+$/, '') || '/';
  const underHome = start !== home && start.startsWith(home === '/' ? '/' : `${home}/`);
  const folders: string[] = [];
  for (let dir = posix.normalize(start); ; dir = posix.dirname(dir)) {
    if (underHome && dir === home) break;
    folders.push(dir);
    if (dir === '/') break;
  }
  const looks = await Promise.all(
    folders.map((dir) =>
      environment.lstat(posix.join(dir, '.git')).then(
        () => 'there' as const,
        (error: unknown) => (isMissing(error) ? ('missing' as const) : ('unknown' as const)),
      ),
    ),
  );
  if (looks.includes('unknown')) return UNKNOWN;
  const found = looks.indexOf('there');
  return found < 0 ? null : folders[found]!;
}

async function gitTopThere(environment: Environment, start: string): Promise<string | null> {
  const vars = Object.entries(hardenedGitVars('/dev/null')).map(([name, value]) => `${name}=${value}`);
  const git = ['git', ...posixHardenedConfig().flatMap((setting) => ['-c', setting]), 'rev-parse', '--show-toplevel'];
  const out = await runThere(environment, SCRIPT, [start, ...vars, ...git]).catch(() => '');
  const top = out.trim();
  if (!top || !posix.isAbsolute(top) || top.includes('\n')) return null;
  // What git printed must be `start` or a folder above it: anything else is not a top this folder is under.
  return top === start || start.startsWith(top.endsWith('/') ? top : `${top}/`) ? top : null;
}
