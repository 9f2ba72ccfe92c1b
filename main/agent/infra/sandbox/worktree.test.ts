import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SandboxWorktree } from '#contract/sandbox';
import { tempDir } from '#test-support/harness';
import { describeSandboxed, runPlan } from '#test-support/sandbox';
import { Worktrees } from '../worktrees/worktrees';
import { Sandbox } from './sandbox';

// The sandbox of an isolated sub-agent (SessionSandbox.inWorktree), for real in bubblewrap (or Seatbelt): its
// worktree writable, the main checkout not, git's folders for its commits taken from Deft's record only.

let root: string;
let main: string;
let home: string;
let tree: SandboxWorktree & { name: string };

const git = (args: string[], cwd = main) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, stdio: 'pipe' }).toString();

beforeEach(async () => {
  root = await tempDir('deft-wtsandbox-');
  main = join(root, 'repo');
  home = join(root, 'home', '.deft');
  await mkdir(main, { recursive: true });
  await mkdir(home, { recursive: true });
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.email', 'a@b.c']);
  git(['config', 'user.name', 'A']);
  await writeFile(join(main, 'app.txt'), 'original\n');
  git(['add', '.']);
  git(['commit', '-qm', 'first']);
  const { record } = await (await Worktrees.of(home, main)).create({ name: 'agent-probe' });
  tree = { name: record.name, path: record.path, branch: record.branch, gitDir: record.gitDir!, commonDir: record.commonDir! };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Commands of an isolated sub-agent: the core's sandbox (on the main checkout) made for its worktree. */
function isolated(worktree: SandboxWorktree = tree) {
  const core = new Sandbox({
    workspace: main,
    home,
    userHome: join(root, 'home'),
    headless: true,
    baseEnv: { PATH: process.env.PATH, HOME: join(root, 'home'), LANG: 'C.UTF-8' },
  });
  const sandbox = core
    .forSession(`wt-${Math.random().toString(36).slice(2)}`, async () => ({ allowed: false, reason: 'no network here' }))
    .inWorktree(worktree);
  return async (command: string, cwd = worktree.path) => {
    const plan = await sandbox.plan({ argv: ['/bin/bash', '-c', command], cwd, label: command });
    try {
      const result = await runPlan(plan);
      return { ...result, sandboxed: plan.sandboxed, blocked: plan.blocked(result.output) };
    } finally {
      plan.release();
    }
  };
}

const identity = '-c user.email=a@b.c -c user.name=A';

describeSandboxed("an isolated sub-agent's sandbox (its worktree)", () => {
  it('writes and commits in its worktree; the main checkout (its git config, hooks, index, HEAD, branch) and another worktree stay untouched', {
    timeout: 60_000,
  }, async () => {
    const run = isolated();
    const work = await run(`echo new > new.txt && git add new.txt && git ${identity} commit -qm 'by the sub-agent' && git log --format=%s -1`);
    expect(work, work.output).toMatchObject({ code: 0, sandboxed: true });
    expect(work.output).toContain('by the sub-agent');
    expect(git(['log', '--format=%s', '-1', tree.branch])).toBe('by the sub-agent\n');

    const head = git(['rev-parse', 'main']);
    const { record: other } = await (await Worktrees.of(home, main)).create({ name: 'other' });
    const attempts = [
      `echo pwned > '${other.path}/app.txt'`,
      `echo 'ref: refs/heads/main' > '${other.gitDir}/HEAD'`,
      `echo pwned > '${main}/app.txt'`,
      `echo pwned > '${main}/planted.txt'`,
      `echo '[core]' >> '${main}/.git/config'`,
      `echo evil > '${main}/.git/hooks/post-commit'`,
      `echo 'ref: refs/heads/evil' > '${main}/.git/HEAD'`,
      `cp '${main}/.git/index' /dev/null && : > '${main}/.git/index'`,
      `git update-ref refs/heads/main ${tree.branch}`,
      `git branch -f main HEAD`,
      `ln -s '${main}' escape && echo pwned > escape/planted.txt`,
    ];
    for (const attempt of attempts) {
      const result = await run(attempt);
      expect(result.code, `${attempt}\n${result.output}`).not.toBe(0);
    }
    expect(await readFile(join(main, 'app.txt'), 'utf8')).toBe('original\n');
    expect(await readFile(join(other.path, 'app.txt'), 'utf8')).toBe('original\n');
    expect(await readFile(join(other.gitDir!, 'HEAD'), 'utf8')).toBe('ref: refs/heads/deft/other\n');
    expect(existsSync(join(main, 'planted.txt'))).toBe(false);
    expect(existsSync(join(main, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(await readFile(join(main, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(git(['rev-parse', 'main'])).toBe(head);
    expect(git(['config', '--list', '--local'])).not.toContain('evil');
    // A refused write is reported with the place it was refused.
    const refused = await run(`echo pwned > '${main}/planted.txt'`);
    expect(refused.blocked.map((b) => b.target)).toContain(join(main, 'planted.txt'));
  });

  it('cannot rewrite its own policy through its .git file, its git dir or the record; a rewritten .git file widens nothing', { timeout: 60_000 }, async () => {
    const run = isolated();
    const dotGit = await readFile(join(tree.path, '.git'), 'utf8');
    const rewrite = await run(
      [
        `echo 'gitdir: ${main}/.git' > .git`,
        `mv .git moved-git-file`,
        `rm -f .git`,
        `echo '${main}/.git' > '${tree.gitDir}/commondir'`,
        `echo '${main}/.git' > '${tree.gitDir}/gitdir'`,
        `echo '[core]' > '${tree.gitDir}/config.worktree'`,
        `mkdir -p '${tree.gitDir}/hooks' && echo evil > '${tree.gitDir}/hooks/post-commit'`,
        `echo '{}' > '${tree.path}.json'`,
      ].join('; '),
    );
    expect(rewrite.output).toMatch(/Read-only file system/);
    expect(await readFile(join(tree.path, '.git'), 'utf8')).toBe(dotGit);
    expect(await readFile(join(tree.gitDir!, 'commondir'), 'utf8')).toBe('../..\n');
    expect(existsSync(join(tree.gitDir!, 'hooks', 'post-commit'))).toBe(false);
    expect(existsSync(join(tree.gitDir!, 'config.worktree'))).toBe(false);
    expect(JSON.parse(await readFile(`${tree.path}.json`, 'utf8'))).toMatchObject({ name: 'agent-probe' });

    // Had the .git file been rewritten anyway (here by the test, outside any sandbox), the next commands still get
    // only what Deft recorded: the main checkout's git folder is named by the file, never made writable by it.
    await writeFile(join(tree.path, '.git'), `gitdir: ${main}/.git\n`);
    const after = isolated();
    for (const attempt of [`echo '[core]' >> '${main}/.git/config'`, `echo x > '${main}/.git/description'`, `echo x > '${main}/x.txt'`]) {
      const result = await after(attempt);
      expect(result.code, `${attempt}\n${result.output}`).not.toBe(0);
    }
    expect(existsSync(join(main, 'x.txt'))).toBe(false);
    expect(git(['config', '--list', '--local'])).not.toMatch(/^\[core\]$/m);
  });

  it('a worktree without a record of its git folders gets none of them writable (commits fail, files are still written)', async () => {
    const run = isolated({ path: tree.path, branch: tree.branch });
    const result = await run(`echo new > new.txt && git add new.txt; echo "add=$?"`);
    expect(result.output).toContain('add=128');
    expect(await readFile(join(tree.path, 'new.txt'), 'utf8')).toBe('new\n');
  });
});
