import type { GitCall, GitResult } from '../git/git';
import type { WorktreeMachine } from './machine';

/**
 * Git for worktrees, on the machine the repository is on (machine.ts: this one, or another through its Environment):
 * Deft's hardened git (no hooks, fsmonitor, external diffs, system or global config — the same argv there) with what
 * merging and committing could still run switched off too:
 * - filter drivers: each `filter.<driver>` the repository's config defines is emptied (as runGitInRepository does), so
 *   no `.gitattributes` line makes git run the repository's clean/smudge/process program;
 * - signing and signature checks (`gpg.program` from the repository's config would run);
 * - merge drivers: each `merge.<driver>.driver` the repository's config defines is replaced by `false`, so a
 *   `.gitattributes` line `merge=<driver>` makes the file a conflict instead of running the repository's program;
 * - the editor (`core.editor` from the repository's config): Deft always passes the message.
 */
const EXTRA = ['commit.gpgSign=false', 'tag.gpgSign=false', 'merge.verifySignatures=false', 'core.editor=false', 'sequence.editor=false', 'merge.stat=false'];

/** The settings that empty every filter driver and stop every merge driver the repository's config defines: one read of its config. */
async function driverOverrides(m: WorktreeMachine, cwd: string, gitEnv?: Readonly<Record<string, string>>): Promise<string[]> {
  const listed = await m
    .runGit({ cwd, args: ['config', '-z', '--get-regexp', '^(filter|merge)\\.'], okCodes: [0, 1], ...(gitEnv ? { gitEnv } : {}) })
    .catch(() => null);
  if (!listed) return [];
  const filters = new Set<string>();
  const merges = new Set<string>();
  for (const record of listed.stdout.toString('utf8').split('\0')) {
    const key = record.split('\n')[0] ?? '';
    const filter = /^filter\.(.+)\.[^.]+$/i.exec(key);
    if (filter) filters.add(filter[1]!);
    const merge = /^merge\.(.+)\.driver$/i.exec(key);
    if (merge) merges.add(merge[1]!);
  }
  return [
    ...[...filters].flatMap((driver) => [
      `filter.${driver}.clean=`,
      `filter.${driver}.smudge=`,
      `filter.${driver}.process=`,
      `filter.${driver}.required=false`,
    ]),
    ...[...merges].map((name) => `merge.${name}.driver=false`),
  ];
}

/** Run git in a repository (a checkout or one of its worktrees) that Deft does not own, on machine `m`. */
export async function git(m: WorktreeMachine, cwd: string, args: readonly string[], options: Omit<GitCall, 'cwd' | 'args'> = {}): Promise<GitResult> {
  const drivers = await driverOverrides(m, cwd, options.gitEnv);
  return m.runGit({ ...options, cwd, args, config: [...EXTRA, ...drivers, ...(options.config ?? [])] });
}

/** git's standard output as text, trailing newline removed. */
export async function gitText(m: WorktreeMachine, cwd: string, args: readonly string[], options: Omit<GitCall, 'cwd' | 'args'> = {}): Promise<string> {
  return (await git(m, cwd, args, options)).stdout.toString('utf8').replace(/\n$/, '');
}

/** NUL-separated output as a list (empty entries dropped). */
export function nulList(stdout: Buffer): string[] {
  return stdout.toString('utf8').split('\0').filter(Boolean);
}

/**
 * Who Deft's commits are by: the repository's `user.name`/`user.email`, else the user's own git config file there
 * read as data (global config is never loaded into a git Deft runs), else "Deft".
 */
export async function identity(m: WorktreeMachine, cwd: string, userHome = m.userHome): Promise<Record<string, string>> {
  const read = async (key: string): Promise<string | null> => {
    const local = await gitText(m, cwd, ['config', '--get', key], { okCodes: [0, 1] }).catch(() => '');
    if (local) return local;
    for (const file of [m.path.join(userHome, '.gitconfig'), m.path.join(userHome, '.config', 'git', 'config')]) {
      if (!(await m.exists(file))) continue;
      const value = await m.runGit({ cwd, args: ['config', '--file', file, '--get', key], okCodes: [0, 1] }).then(
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
