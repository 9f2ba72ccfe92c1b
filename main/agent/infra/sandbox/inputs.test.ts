import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { describeSandboxed, runPlan } from '#test-support/sandbox';
import { Sandbox } from './sandbox';

// The sandbox's own inputs (.git, .deft, .claude, .mcp.json — folder, file, link or missing) against a
// command that tries to rewrite them, for real in bubblewrap (or Seatbelt).

let root: string;
let workspace: string;
let deftHome: string;
let victim: string;

beforeEach(async () => {
  root = await tempDir('deft-inputs-');
  workspace = join(root, 'ws');
  deftHome = join(root, 'home', '.deft');
  victim = join(root, 'victim');
  await mkdir(workspace);
  await mkdir(deftHome, { recursive: true });
  await mkdir(victim);
  await writeFile(join(victim, '.bashrc'), "# the user's\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const git = (args: string[], cwd = workspace) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, stdio: 'pipe' }).toString();

/** A session's sandbox on the workspace as it is now (the session opens here). */
function open(at = workspace) {
  const sandbox = new Sandbox({
    workspace: at,
    home: deftHome,
    userHome: join(root, 'home'),
    headless: true,
    baseEnv: { PATH: process.env.PATH, HOME: join(root, 'home'), LANG: 'C.UTF-8' },
  });
  const session = sandbox.forSession(`inputs-${Math.random().toString(36).slice(2)}`, async () => ({ allowed: false, reason: 'no network here' }));
  return async (command: string, cwd = at) => {
    const plan = await session.plan({ argv: ['/bin/bash', '-c', command], cwd, label: command });
    try {
      const result = await runPlan(plan);
      return { ...result, blocked: plan.blocked(result.output) };
    } finally {
      plan.release();
    }
  };
}

describeSandboxed('the sandbox protects its own inputs', () => {
  it('a .git file written by a command (gitdir: elsewhere) never makes that folder writable (finding 1)', async () => {
    const run = open();
    const planted = await run(`printf 'gitdir: %s\\n' '${victim}' > "$(printf '.g')it"; echo "exit=$?"`);
    expect(planted.output).toMatch(/Read-only file system|Is a directory/);
    const next = await run(`echo pwned >> '${victim}/.bashrc'`);
    expect(next.code).not.toBe(0);
    expect(await readFile(join(victim, '.bashrc'), 'utf8')).toBe("# the user's\n");
    // Creating .git is refused, and the guard leaves nothing behind.
    expect((await run('git init -q .')).code).not.toBe(0);
    expect(existsSync(join(workspace, '.git'))).toBe(false);
  });

  it('a linked worktree keeps working (commits land in its repository); its .git file and commondir cannot be rewritten', async () => {
    const main = join(root, 'main');
    await mkdir(main);
    git(['init', '-q', '-b', 'main'], main);
    git(['-c', 'user.email=a@b.c', '-c', 'user.name=A', 'commit', '-q', '--allow-empty', '-m', 'first'], main);
    const tree = join(root, 'tree');
    git(['worktree', 'add', '-q', tree], main);
    const run = open(tree);
    const commit = await run('echo x > a.txt && git add a.txt && git -c user.email=a@b.c -c user.name=A commit -qm second && git log --format=%s -1');
    expect(commit.output, commit.output).toContain('second');
    expect(commit.code).toBe(0);
    const gitDir = join(main, '.git', 'worktrees', 'tree');
    const rewrite = await run(
      `echo 'gitdir: ${victim}' > .git; echo '${victim}' > '${gitDir}/commondir'; echo evil > '${main}/.git/hooks/post-commit'; echo '[core]' >> '${main}/.git/config'; echo ../.. > '${main}/.git/commondir'`,
    );
    expect(rewrite.output).toMatch(/Read-only file system/);
    expect(await readFile(join(tree, '.git'), 'utf8')).toBe(`gitdir: ${gitDir}\n`);
    expect(await readFile(join(gitDir, 'commondir'), 'utf8')).toBe('../..\n');
    expect(existsSync(join(main, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect(existsSync(join(main, '.git', 'commondir'))).toBe(false);
    expect((await run(`echo pwned >> '${victim}/.bashrc'`)).code).not.toBe(0);
  });

  it('.git/commondir cannot be planted in a repository, git works meanwhile, and no placeholder is left', async () => {
    git(['init', '-q', '-b', 'main']);
    await mkdir(join(victim, 'objects'));
    await mkdir(join(victim, 'refs'));
    const run = open();
    const planted = await run(
      `echo '${victim}' > .git/commondir; cat .git/commondir; git status --short; echo x > f && git add f && git -c user.email=a@b.c -c user.name=A commit -qm one && echo committed`,
    );
    expect(planted.output).toMatch(/Read-only file system/);
    expect(planted.output).toContain('committed');
    expect(existsSync(join(workspace, '.git', 'commondir'))).toBe(false);
    expect(git(['log', '--format=%s'])).toBe('one\n');
  });

  it('a symlinked .git gets its hooks and config protected where it leads, and git still commits (finding 1)', async () => {
    await mkdir(join(workspace, 'store'));
    git(['init', '-q', '-b', 'main', '--separate-git-dir', join(workspace, 'store', 'repo.git')]);
    await rm(join(workspace, '.git'));
    await symlink('store/repo.git', join(workspace, '.git'));
    const run = open();
    const attack = await run('echo evil > .git/hooks/pre-commit; echo "[core]" >> .git/config; echo evil > store/repo.git/hooks/post-commit');
    expect(attack.output).toMatch(/Read-only file system/);
    expect(existsSync(join(workspace, 'store', 'repo.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(workspace, 'store', 'repo.git', 'hooks', 'post-commit'))).toBe(false);
    const commit = await run('echo x > f && git add f && git -c user.email=a@b.c -c user.name=A commit -qm one && echo committed');
    expect(commit.output).toContain('committed');
  });

  it('a symlinked .deft is protected where it leads; swapping the link stops every command (finding 5)', async () => {
    const shared = join(workspace, 'config', 'deft');
    await mkdir(shared, { recursive: true });
    await writeFile(join(shared, 'settings.json'), '{}');
    await symlink('config/deft', join(workspace, '.deft'));
    const run = open();
    const through = await run(`echo '{"sandbox":{"enabled":false}}' > .deft/settings.json; echo x > config/deft/settings.local.json`);
    expect(through.output).toMatch(/Read-only file system/);
    expect(await readFile(join(shared, 'settings.json'), 'utf8')).toBe('{}');
    expect(through.blocked.map((b) => b.target)).toContain(join(workspace, '.deft', 'settings.json'));
    // A link itself cannot be covered by a mount: replacing it works, and from then on nothing runs.
    await run(`rm .deft && mkdir .deft && echo '{"sandbox":{"enabled":false}}' > .deft/settings.json`);
    await expect(run('echo after')).rejects.toThrow(/\.deft was a link to .*config\/deft when this session opened and now is a folder/);
  });

  it('.claude and .mcp.json cannot be rewritten, and .claude cannot be created', async () => {
    await writeFile(join(workspace, '.mcp.json'), '{"mcpServers":{}}');
    const run = open();
    const attack = await run(`echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json; mkdir -p .claude/agents && echo evil > .claude/agents/a.md`);
    expect(attack.output).toMatch(/Read-only file system/);
    expect(await readFile(join(workspace, '.mcp.json'), 'utf8')).toBe('{"mcpServers":{}}');
    expect(existsSync(join(workspace, '.claude'))).toBe(false);
  });
});
