import { posix } from 'node:path';
import type { Environment } from '#contract/environment';
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
  const vars = Object.entries(hardenedGitVars('/dev/null')).map(([name, value]) => `${name}=${value}`);
  const git = ['git', ...posixHardenedConfig().flatMap((setting) => ['-c', setting]), 'rev-parse', '--show-toplevel'];
  const out = await runThere(environment, SCRIPT, [start, ...vars, ...git]).catch(() => '');
  const top = out.trim();
  if (!top || !posix.isAbsolute(top) || top.includes('\n')) return null;
  // What git printed must be `start` or a folder above it: anything else is not a top this folder is under.
  return top === start || start.startsWith(top.endsWith('/') ? top : `${top}/`) ? top : null;
}
