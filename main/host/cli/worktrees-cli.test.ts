import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { META_FILE } from '#infra/sessions/session';
import { RUNNING_FILE, clearRunning, markRunning, markWaiting } from '#infra/sessions/running';
import { SessionStore, workspaceSessionsDir } from '#infra/sessions/store';
import { repositoryWorktreesDir } from '#infra/worktrees/records';
import { fastRetry, tempDir } from '#test-support/harness';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { type CliIo, runCli } from './cli';

let servers: MockModelServer[];
let repo: string;
let home: string;
const plain = (args: string[], cwd = repo) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

beforeEach(async () => {
  servers = [new MockModelServer(), new MockModelServer()];
  await Promise.all(servers.map((s) => s.start()));
  const root = await tempDir('deft-wt-cli-');
  repo = join(root, 'repo');
  home = join(root, 'home');
  await mkdir(repo);
  await mkdir(home);
  plain(['init', '-q', '-b', 'main']);
  plain(['config', 'user.email', 'a@b.c']);
  plain(['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(repo, '.gitignore'), '.env.example\n');
  await writeFile(join(repo, '.env.example'), 'PORT=3000\n');
  plain(['add', '.']);
  plain(['commit', '-qm', 'first']);
  await writeFile(join(home, 'settings.json'), JSON.stringify({ worktree: { copy: ['.env.example'] } }));
});
afterEach(() => Promise.all(servers.map((s) => s.close())));

async function cli(args: string[], server = servers[0]!) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: repo,
    coreOptions: { retry: fastRetry },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr, server };
}

const run = (server: MockModelServer, ...args: string[]) =>
  cli(['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', '--sandbox', 'off', ...args], server);

/** The model reads app.txt, writes it with `text`, reads it again (what it sees), then answers. */
function writes(server: MockModelServer, text: string) {
  server.enqueue(
    toolStep(callChunk('Read', { path: 'app.txt' })),
    toolStep(callChunk('Write', { path: 'app.txt', content: text })),
    toolStep(callChunk('Read', { path: 'app.txt' })),
    textReply('Done.'),
  );
}

/** What the session's last Read returned. */
const lastRead = (server: MockModelServer) =>
  String(
    server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .at(-1)!.content,
  );

describe('deft run --worktree and deft worktrees', { timeout: 90_000 }, () => {
  it('runs the session in a new worktree, leaves the main checkout untouched, and records the worktree on the session', async () => {
    writes(servers[0]!, 'one\nTWO\nthree\n');
    const result = await run(servers[0]!, '--worktree=fix-two', '--output-format', 'json', 'Capitalise two');
    expect(result.code).toBe(0);
    const path = join(repositoryWorktreesDir(home, repo), 'fix-two');
    expect(JSON.parse(result.stdout)).toMatchObject({ subtype: 'success', worktree: { name: 'fix-two', branch: 'deft/fix-two', path } });
    expect(await readFile(join(path, 'app.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(await readFile(join(path, '.env.example'), 'utf8')).toBe('PORT=3000\n');
    // The main checkout: same file, same HEAD, nothing new.
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(plain(['status', '--porcelain'])).toBe('');
    const sessionId = JSON.parse(result.stdout).session_id as string;
    const meta = JSON.parse(await readFile(join(workspaceSessionsDir(home, path), sessionId, META_FILE), 'utf8'));
    expect(meta).toMatchObject({ workspace: path, worktree: { name: 'fix-two', branch: 'deft/fix-two', baseBranch: 'main', repoRoot: repo } });

    const listed = JSON.parse((await cli(['worktrees', '--json'])).stdout);
    expect(listed.worktrees).toMatchObject([{ name: 'fix-two', changedFiles: ['app.txt'], dirty: true, sessions: [{ id: sessionId }] }]);
    expect((await cli(['worktrees'])).stdout).toMatch(/fix-two\s+deft\/fix-two\s+main\s+1\s+0\s+0\s+1\s+done\s+uncommitted changes/);
  });

  it('two sessions in two worktrees edit the same file at once: each sees its own; one merges, the other conflicts and nothing is lost; discard removes it', async () => {
    writes(servers[0]!, 'one\nfrom a\nthree\n');
    writes(servers[1]!, 'one\nfrom b\nthree\n');
    const [a, b] = await Promise.all([run(servers[0]!, '--worktree=a', 'Edit two'), run(servers[1]!, '--worktree=b', 'Edit two')]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const dir = repositoryWorktreesDir(home, repo);
    expect(await readFile(join(dir, 'a', 'app.txt'), 'utf8')).toBe('one\nfrom a\nthree\n');
    expect(await readFile(join(dir, 'b', 'app.txt'), 'utf8')).toBe('one\nfrom b\nthree\n');
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    // What each session read back after both wrote.
    expect(lastRead(servers[0]!)).toContain('from a');
    expect(lastRead(servers[0]!)).not.toContain('from b');
    expect(lastRead(servers[1]!)).toContain('from b');
    expect(lastRead(servers[1]!)).not.toContain('from a');

    const merged = await cli(['worktrees', 'merge', 'a']);
    expect(merged).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Merged a onto main \([0-9a-f]{12}\): app.txt\n$/) });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\nfrom a\nthree\n');
    const head = plain(['rev-parse', 'HEAD']);
    const conflict = await cli(['worktrees', 'merge', 'b']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('conflicts in: app.txt. Nothing was changed.');
    expect(plain(['rev-parse', 'HEAD'])).toBe(head);
    expect(plain(['status', '--porcelain'])).toBe('');
    expect(plain(['show', 'deft/b:app.txt'])).toBe('one\nfrom b\nthree\n');

    expect(await cli(['worktrees', 'discard', 'b', '--delete-branch'])).toMatchObject({ code: 0, stdout: `Removed ${join(dir, 'b')} and its branch.\n` });
    expect(existsSync(join(dir, 'b'))).toBe(false);
    expect(plain(['branch', '--list', 'deft/b'])).toBe('');
    expect(JSON.parse((await cli(['worktrees', '--json'])).stdout).worktrees.map((w: { name: string }) => w.name)).toEqual(['a']);
  });

  it('after a conflict, says what to run next; deft worktrees resolve hands it to the worktree’s session and runs it headless, exactly once', async () => {
    writes(servers[0]!, 'one\nfrom a\nthree\n');
    writes(servers[1]!, 'one\nfrom b\nthree\n');
    expect((await run(servers[0]!, '--worktree=a', 'Edit two')).code).toBe(0);
    expect((await run(servers[1]!, '--worktree=b', 'Edit two')).code).toBe(0);
    expect((await cli(['worktrees', 'merge', 'a'])).code).toBe(0);
    const conflict = await cli(['worktrees', 'merge', 'b']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('deft worktrees resolve b');
    expect(conflict.stderr).toContain(`cd ${join(repositoryWorktreesDir(home, repo), 'b')} && git merge main`);
    expect(conflict.stderr).toContain('then: deft worktrees merge b');

    // The session in b resolves it: the markers are in its worktree; it writes both lines and commits the merge.
    const server = servers[1]!;
    const before = server.requests.length;
    server.enqueue(
      toolStep(callChunk('Read', { path: 'app.txt' })),
      toolStep(callChunk('Write', { path: 'app.txt', content: 'one\nfrom a\nfrom b\nthree\n' })),
      toolStep(callChunk('Bash', { command: 'git add app.txt && git commit -q --no-edit' })),
      textReply('Resolved.'),
    );
    const resolved = await cli(
      ['worktrees', 'resolve', 'b', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', '--sandbox', 'off'],
      server,
    );
    expect(resolved.stderr).toMatch(/merged main into deft\/b in the worktree .* it conflicts in: app\.txt/);
    expect(resolved).toMatchObject({ code: 0, stdout: 'Resolved.\n' });
    expect(resolved.stderr).toContain('the merge in the worktree is committed. Next: deft worktrees merge b');
    const prompts = server.requests.slice(before).map((r) => JSON.stringify(r.body.messages));
    expect(prompts[0]).toContain("Merging this worktree's branch deft/b onto main conflicts");
    expect(prompts[1]).toContain('<<<<<<<'); // what its Read saw: the markers, in the worktree
    // Taken once: the mailbox is empty, and running it again finds nothing.
    const sessionId = /\(([^,)]+)\) resolves it now/.exec(resolved.stderr)![1]!;
    const again = await cli([
      'run',
      '--base-url',
      server.baseUrl,
      '--model',
      'mock-model',
      '--workspace',
      join(repositoryWorktreesDir(home, repo), 'b'),
      '--session',
      sessionId,
      '--mailbox',
    ]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining(`nothing waits in the mailbox of session ${sessionId}`) });
    expect(server.requests.slice(before)).toHaveLength(4);
    expect(await cli(['worktrees', 'merge', 'b'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Merged b onto main/) });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\nfrom a\nfrom b\nthree\n');
    expect(await cli(['worktrees', 'resolve', '--permission-mode', 'yolo'])).toMatchObject({ code: 2, stderr: expect.stringContaining('say which worktree') });
    expect(await cli(['worktrees', 'resolve', 'b', '--session', 'x'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--session does not go with resolve'),
    });
  });

  it('in the OS sandbox, a command in a worktree session writes the worktree, but not Deft’s home nor the main checkout', async () => {
    const { sandboxSupport } = await import('#infra/sandbox/availability');
    if (!sandboxSupport().kind) throw new Error('this test needs the OS sandbox (bubblewrap), which this machine lacks');
    // A script, so the string checks cannot see what it writes: the sandbox is the wall tried here.
    const script = `echo made > made.txt\necho x > ${join(home, 'settings.json')}\necho x > ${join(repo, 'app.txt')}\n`;
    servers[0]!.enqueue(
      toolStep(callChunk('Write', { path: 'w.sh', content: script })),
      toolStep(callChunk('Bash', { command: 'sh w.sh; cat made.txt' })),
      textReply('Done.'),
    );
    const result = await cli(
      ['run', '--base-url', servers[0]!.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', '--sandbox', 'on', '--worktree=boxed', 'Make a file'],
      servers[0],
    );
    expect(result.code).toBe(0);
    const path = join(repositoryWorktreesDir(home, repo), 'boxed');
    expect(await readFile(join(path, 'made.txt'), 'utf8')).toBe('made\n');
    expect(String(servers[0]!.requests.at(-1)!.body.messages.at(-1)!.content)).toMatch(/Read-only file system|Permission denied|protected/);
    expect(JSON.parse(await readFile(join(home, 'settings.json'), 'utf8'))).toEqual({ worktree: { copy: ['.env.example'] } });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('says what is wrong: a bad name, outside a repository, an unknown worktree', async () => {
    expect(await run(servers[0]!, '--worktree=../up', 'x')).toMatchObject({ code: 2, stderr: expect.stringContaining('not a worktree name') });
    expect(await run(servers[0]!, '--worktree', '--continue', 'x')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--worktree starts a new session'),
    });
    expect(await cli(['worktrees', 'merge', 'nope'])).toMatchObject({ code: 1, stderr: expect.stringContaining('no worktree named "nope"') });
    expect(await cli(['worktrees', 'merge'])).toMatchObject({ code: 2 });
    const outside = await tempDir('deft-not-a-repo-');
    expect(await cli(['worktrees', '--workspace', outside])).toMatchObject({ code: 1, stderr: expect.stringContaining('not inside a git repository') });
    expect(servers[0]!.requests).toHaveLength(0);
  });

  it('deft worktrees discard refuses while a session runs in the worktree (naming it); a mark left by a dead process does not count', async () => {
    expect(await cli(['worktrees', 'create', 'busy'])).toMatchObject({ code: 0 });
    const path = join(repositoryWorktreesDir(home, repo), 'busy');
    const session = await new SessionStore(home, path).create();
    markRunning(session.dir);
    // The list says what its session is doing now, as the sidebar does: running, then waiting for you.
    expect((await cli(['worktrees'])).stdout).toMatch(/busy\s+deft\/busy\s+main\s+0\s+0\s+0\s+1\s+running\s+clean/);
    markWaiting(session.dir, true);
    expect((await cli(['worktrees'])).stdout).toMatch(/busy\s.*\s1\s+waiting for you\s+clean/);
    expect(JSON.parse((await cli(['worktrees', '--json'])).stdout).worktrees).toMatchObject([{ name: 'busy', live: 'waiting' }]);
    const refused = await cli(['worktrees', 'discard', 'busy']);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining(`a session is running in it — "New session" (${session.id})`) });
    expect(existsSync(path)).toBe(true);
    clearRunning(session.dir);
    await writeFile(join(session.dir, RUNNING_FILE), JSON.stringify({ pid: 2_147_483_000, host: hostname(), since: 0 }));
    expect(await cli(['worktrees', 'discard', 'busy'])).toMatchObject({ code: 0 });
    expect(existsSync(path)).toBe(false);
  });
});

describe('deft worktrees merge --draft-message and branch', { timeout: 120_000 }, () => {
  it('drafts the message with the configured model only when asked; branch keeps the branch and removes the worktree', async () => {
    const server = servers[0]!;
    const say = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const env = { DEFT_HOME: home, DEFT_BASE_URL: server.baseUrl, DEFT_MODEL: 'mock-model', DEFT_API_KEY: 'k' };
      const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env, cwd: repo, coreOptions: { retry: fastRetry } });
      return { code, stdout, stderr };
    };
    expect((await say(['worktrees', 'create', 'drafted'])).code).toBe(0);
    expect((await say(['worktrees', 'create', 'plain'])).code).toBe(0);
    expect((await say(['worktrees', 'create', 'kept'])).code).toBe(0);
    const dir = repositoryWorktreesDir(home, repo);
    await writeFile(join(dir, 'drafted', 'app.txt'), 'ONE\ntwo\nthree\n');
    await writeFile(join(dir, 'plain', 'new.txt'), 'new\n');
    await writeFile(join(dir, 'kept', 'kept.txt'), 'kept\n');
    server.enqueue({ chunks: [{ text: 'Capitalise the first line' }, { finish: 'stop' }] });
    expect((await say(['worktrees', 'merge', 'drafted', '--squash', '--draft-message'])).code).toBe(0);
    expect(plain(['log', '-1', '--format=%s', 'main'])).toBe('Capitalise the first line\n');
    expect(server.requests).toHaveLength(1);
    // Without --draft-message no model is asked: today's default message.
    expect((await say(['worktrees', 'merge', 'plain'])).code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(plain(['log', '-1', '--format=%s', 'main'])).toBe("Merge branch 'deft/plain' (Deft worktree)\n");
    expect((await say(['worktrees', 'merge', 'kept', '--draft-message', '-m', 'x'])).code).toBe(2);
    const kept = await say(['worktrees', 'branch', 'kept', '--message=--amend']);
    expect(kept).toMatchObject({ code: 0, stdout: expect.stringContaining('Committed its uncommitted changes on the branch deft/kept') });
    expect(existsSync(join(dir, 'kept'))).toBe(false);
    expect(plain(['log', '-1', '--format=%s', 'deft/kept'])).toBe('--amend\n');
    expect(plain(['show', 'deft/kept:kept.txt'])).toBe('kept\n');
  });
});
