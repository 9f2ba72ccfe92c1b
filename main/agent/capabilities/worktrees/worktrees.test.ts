import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, tempDir } from '#test-support/harness';

let h: Awaited<ReturnType<typeof createHarness>> | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const plain = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

async function repository(): Promise<string> {
  const repo = await tempDir('deft-wt-cap-');
  plain(repo, ['init', '-q', '-b', 'main']);
  plain(repo, ['config', 'user.email', 'a@b.c']);
  plain(repo, ['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'one\ntwo\n');
  plain(repo, ['add', '.']);
  plain(repo, ['commit', '-qm', 'first']);
  return repo;
}

describe('the worktrees commands', { timeout: 90_000 }, () => {
  it('list, create, merge, apply and discard for the workspace’s repository', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const { handlers } = h.core;
    expect(await handlers.listWorktrees({})).toEqual({ repoRoot: repo, worktrees: [] });
    const created = await handlers.createWorktree({ name: 'one' });
    expect(created.worktree).toMatchObject({ name: 'one', branch: 'deft/one', baseBranch: 'main', state: 'ok', changedFiles: [] });
    await writeFile(join(created.worktree.path, 'app.txt'), 'one\nTWO\n');
    expect((await handlers.listWorktrees({})).worktrees).toMatchObject([{ name: 'one', changedFiles: ['app.txt'], dirty: true }]);
    const two = await handlers.createWorktree({ name: 'two' });
    await writeFile(join(two.worktree.path, 'app.txt'), 'one\n2\n');
    expect(await handlers.mergeWorktree({ name: 'one', squash: true, message: 'Capitals' })).toMatchObject({
      status: 'merged',
      squashed: true,
      files: ['app.txt'],
    });
    expect(await handlers.mergeWorktree({ name: 'two' })).toEqual({ status: 'conflict', baseBranch: 'main', files: ['app.txt'] });
    expect(await handlers.applyWorktree({ name: 'two' })).toMatchObject({ status: 'conflict', files: ['app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(await handlers.discardWorktree({ name: 'two', deleteBranch: true })).toEqual({ removed: two.worktree.path, branchDeleted: true });
    expect(existsSync(two.worktree.path)).toBe(false);
  });

  it('refuses readably: a bad name, an unknown worktree; outside a repository the list says why', async () => {
    h = await createHarness();
    expect(await h.core.handlers.listWorktrees({})).toMatchObject({
      repoRoot: null,
      reason: expect.stringContaining('not inside a git repository'),
      worktrees: [],
    });
    const repo = await repository();
    await h.dispose();
    h = await createHarness({ workspace: repo });
    await expect(h.core.handlers.createWorktree({ name: '../up' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('not a worktree name'),
    });
    await expect(h.core.handlers.mergeWorktree({ name: 'nope' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('no worktree named'),
    });
  });
});
