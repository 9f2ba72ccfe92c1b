import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type GitCall, type GitResult, runGit, runGitInRepository } from '../git/git';

/**
 * Git for worktrees: Deft's hardened git (no hooks, fsmonitor, filters, external diffs, system or global
 * config) with what merging and committing could still run switched off too:
 * - signing and signature checks (`gpg.program` from the repository's config would run);
 * - merge drivers: each `merge.<driver>.driver` the repository's config defines is replaced by `false`, so a
 *   `.gitattributes` line `merge=<driver>` makes the file a conflict instead of running the repository's program;
 * - the editor (`core.editor` from the repository's config): Deft always passes the message.
 */
const EXTRA = ['commit.gpgSign=false', 'tag.gpgSign=false', 'merge.verifySignatures=false', 'core.editor=false', 'sequence.editor=false', 'merge.stat=false'];

async function mergeDriverOverrides(cwd: string): Promise<string[]> {
  const listed = await runGit({ cwd, args: ['config', '-z', '--get-regexp', '^merge\\..*\\.driver$'], okCodes: [0, 1] }).catch(() => null);
  if (!listed) return [];
  const names = new Set<string>();
  for (const record of listed.stdout.toString('utf8').split('\0')) {
    const match = /^merge\.(.+)\.driver$/i.exec(record.split('\n')[0] ?? '');
    if (match) names.add(match[1]!);
  }
  return [...names].map((name) => `merge.${name}.driver=false`);
}

/** Run git in a repository (a checkout or one of its worktrees) that Deft does not own. */
export async function git(cwd: string, args: readonly string[], options: Omit<GitCall, 'cwd' | 'args'> = {}): Promise<GitResult> {
  const drivers = await mergeDriverOverrides(cwd);
  return runGitInRepository({ ...options, cwd, args, config: [...EXTRA, ...drivers, ...(options.config ?? [])] });
}

/** git's standard output as text, trailing newline removed. */
export async function gitText(cwd: string, args: readonly string[], options: Omit<GitCall, 'cwd' | 'args'> = {}): Promise<string> {
  return (await git(cwd, args, options)).stdout.toString('utf8').replace(/\n$/, '');
}

/** NUL-separated output as a list (empty entries dropped). */
export function nulList(stdout: Buffer): string[] {
  return stdout.toString('utf8').split('\0').filter(Boolean);
}

/**
 * Who Deft's commits are by: the repository's `user.name`/`user.email`, else the user's own git config file read as
 * data (global config is never loaded into a git Deft runs), else "Deft".
 */
export async function identity(cwd: string, userHome = homedir()): Promise<Record<string, string>> {
  const read = async (key: string): Promise<string | null> => {
    const local = await gitText(cwd, ['config', '--get', key], { okCodes: [0, 1] }).catch(() => '');
    if (local) return local;
    for (const file of [join(userHome, '.gitconfig'), join(userHome, '.config', 'git', 'config')]) {
      if (!existsSync(file)) continue;
      const value = await runGit({ cwd, args: ['config', '--file', file, '--get', key], okCodes: [0, 1] }).then(
        (r) => r.stdout.toString('utf8').trim(),
        () => '',
      );
      if (value) return value;
    }
    return null;
  };
  const name = (await read('user.name')) ?? 'Deft';
  const email = (await read('user.email')) ?? 'deft@localhost';
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}
