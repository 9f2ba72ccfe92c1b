import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { commitPending, worktreeState } from './merge';
import { repositoryWorktreesDir, worktreeAt } from './records';
import { Worktrees } from './worktrees';

let root: string;
let repo: string;
let home: string;
const plain = (args: string[], cwd = repo) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

beforeEach(async () => {
  root = await tempDir('deft-worktrees-');
  repo = join(root, 'repo');
  home = join(root, 'home');
  await mkdir(repo);
  await mkdir(home);
  plain(['init', '-q', '-b', 'main']);
  plain(['config', 'user.email', 'a@b.c']);
  plain(['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'line 1\nline 2\nline 3\n');
  await writeFile(join(repo, '.gitignore'), '.env.example\nnode_modules/\n');
  plain(['add', '.']);
  plain(['commit', '-qm', 'first']);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

// Many git processes per test: on a loaded machine they take longer than the default 20 s.
describe('worktrees', { timeout: 90_000 }, () => {
  it('makes a worktree on a new branch under Deft’s home, copies the listed untracked files, and lists its state', async () => {
    await writeFile(join(repo, '.env.example'), 'PORT=1\n');
    const trees = await Worktrees.of(home, repo);
    const { record, copy } = await trees.create({ name: 'fix-login', copy: ['.env.example', 'missing/**'] });
    expect(record.path).toBe(join(repositoryWorktreesDir(home, repo), 'fix-login'));
    expect(record.path.startsWith(repo)).toBe(false);
    expect(record).toMatchObject({ branch: 'deft/fix-login', baseBranch: 'main' });
    expect(copy.copied).toEqual(['.env.example']);
    expect(await readFile(join(record.path, '.env.example'), 'utf8')).toBe('PORT=1\n');
    expect(await worktreeAt(home, record.path)).toMatchObject({ name: 'fix-login' });

    await writeFile(join(record.path, 'app.txt'), 'line 1\nchanged\nline 3\n');
    await writeFile(join(record.path, 'new.txt'), 'new\n');
    const [state] = await trees.list();
    expect(state).toMatchObject({ name: 'fix-login', state: 'ok', dirty: true, ahead: 0, changedFiles: ['app.txt', 'new.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('line 1\nline 2\nline 3\n');
  });

  it('refuses bad names, existing branches and option-looking bases', async () => {
    const trees = await Worktrees.of(home, repo);
    for (const name of ['..', '../x', '-rf', 'a..b', 'x.lock', '.hidden', 'a/b', ''])
      await expect(trees.create({ name }), name).rejects.toThrow(/not a worktree name/);
    await expect(trees.create({ name: 'ok', branch: '--upload-pack=x' })).rejects.toThrow(/branch name/);
    await expect(trees.create({ name: 'ok', base: '--output=/tmp/x' })).rejects.toThrow(/not a branch, tag or commit/);
    plain(['branch', 'deft/taken']);
    await expect(trees.create({ name: 'taken' })).rejects.toThrow(/exists already/);
    expect(existsSync(join(repositoryWorktreesDir(home, repo), 'ok'))).toBe(false);
  });

  it('two makes of one name at once: one wins, the other fails and leaves the winner whole', async () => {
    const trees = await Worktrees.of(home, repo);
    const results = await Promise.allSettled([trees.create({ name: 'same' }), trees.create({ name: 'same' })]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const path = join(repositoryWorktreesDir(home, repo), 'same');
    expect(await readFile(join(path, 'app.txt'), 'utf8')).toBe('line 1\nline 2\nline 3\n');
    expect(plain(['branch', '--list', 'deft/same'])).toContain('deft/same');
    expect((await trees.list()).map((w) => [w.name, w.state])).toEqual([['same', 'ok']]);
  });

  it('merges one worktree, then reports the other’s conflict file by file and loses nothing', async () => {
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a' })).record;
    const b = (await trees.create({ name: 'b' })).record;
    await writeFile(join(a.path, 'app.txt'), 'line 1\nfrom a\nline 3\n');
    await writeFile(join(b.path, 'app.txt'), 'line 1\nfrom b\nline 3\n');
    await writeFile(join(b.path, 'b-only.txt'), 'b\n');
    await writeFile(join(repo, 'unrelated.txt'), 'mine, uncommitted\n');

    const first = await trees.merge('a');
    expect(first).toMatchObject({ status: 'merged', baseBranch: 'main', files: ['app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('line 1\nfrom a\nline 3\n');
    expect(await readFile(join(repo, 'unrelated.txt'), 'utf8')).toBe('mine, uncommitted\n');

    const headBefore = plain(['rev-parse', 'HEAD']);
    const second = await trees.merge('b');
    expect(second).toEqual({ status: 'conflict', baseBranch: 'main', files: ['app.txt'] });
    expect(plain(['rev-parse', 'HEAD'])).toBe(headBefore);
    expect(plain(['status', '--porcelain'])).toBe('?? unrelated.txt\n');
    expect(await readFile(join(b.path, 'app.txt'), 'utf8')).toBe('line 1\nfrom b\nline 3\n');
    // b's work is committed on its branch, nothing of it lost.
    expect(plain(['show', 'deft/b:b-only.txt'])).toBe('b\n');
  });

  it('commits exactly the snapshot a merge checked: an edit made after it stays in the worktree, uncommitted, and a moved branch is not overwritten', async () => {
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a' })).record;
    await writeFile(join(a.path, 'app.txt'), 'line 1\nshown\nline 3\n');
    const shown = await worktreeState(trees.machine, a);
    // The session writes again between the check and the commit.
    await writeFile(join(a.path, 'app.txt'), 'line 1\nwritten after\nline 3\n');
    const { committed, tip } = await commitPending(trees.machine, a, 'shown changes', shown);
    expect(committed).toBe(true);
    expect(plain(['rev-parse', `${tip}^{tree}`]).trim()).toBe(shown.tree);
    expect(plain(['show', 'deft/a:app.txt'])).toBe('line 1\nshown\nline 3\n');
    expect(await readFile(join(a.path, 'app.txt'), 'utf8')).toBe('line 1\nwritten after\nline 3\n');
    expect(plain(['status', '--porcelain'], a.path)).toBe(' M app.txt\n');
    // The branch moved since the snapshot (the session committed): the stale snapshot commits nothing over it.
    await expect(commitPending(trees.machine, a, 'stale', shown)).rejects.toThrow();
    expect(plain(['rev-parse', 'deft/a']).trim()).toBe(tip);
  });

  it('refuses to merge over uncommitted changes in the files the merge touches', async () => {
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a' })).record;
    await writeFile(join(a.path, 'app.txt'), 'from a\n');
    await writeFile(join(repo, 'app.txt'), 'my own edit\n');
    expect(await trees.merge('a')).toMatchObject({ status: 'dirty', files: ['app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('my own edit\n');
  });

  it('squashes onto the base branch as one commit', async () => {
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a' })).record;
    await writeFile(join(a.path, 'x.txt'), 'x\n');
    expect(await trees.merge('a', { squash: true, message: 'Add x' })).toMatchObject({ status: 'merged', squashed: true });
    expect(plain(['log', '--format=%P', '-1']).trim().split(' ')).toHaveLength(1);
    expect(plain(['log', '--format=%s', '-1'])).toBe('Add x\n');
    // Its changes are on the base already: merging again adds nothing (whether or not the squash made the same commit).
    expect(await trees.merge('a')).toMatchObject({ status: 'nothing' });
  });

  it('applies as uncommitted changes, and refuses when they do not apply', async () => {
    await writeFile(join(repo, '.env.example'), 'PORT=1\n');
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a', copy: ['.env.example'] })).record;
    await writeFile(join(a.path, 'app.txt'), 'line 1\nfrom a\nline 3\n');
    await writeFile(join(a.path, 'added.txt'), 'added\n');
    await writeFile(join(a.path, '.env.example'), 'PORT=2\n');
    expect(await trees.apply('a')).toEqual({ status: 'applied', files: ['added.txt', 'app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('line 1\nfrom a\nline 3\n');
    expect(await readFile(join(repo, '.env.example'), 'utf8')).toBe('PORT=1\n');
    expect(plain(['log', '--oneline']).trim().split('\n')).toHaveLength(1);
    // Committed meanwhile on main in a way the patch no longer fits.
    plain(['checkout', '-q', '--', 'app.txt']);
    await rm(join(repo, 'added.txt'));
    await writeFile(join(repo, 'app.txt'), 'other\n');
    plain(['commit', '-qam', 'other']);
    const again = await trees.apply('a');
    expect(again).toMatchObject({ status: 'conflict', files: ['app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('other\n');
    expect(existsSync(join(repo, 'added.txt'))).toBe(false);
  });

  it('discards the worktree (and the branch when asked), and cleanup forgets one whose folder is gone', async () => {
    const trees = await Worktrees.of(home, repo);
    const a = (await trees.create({ name: 'a' })).record;
    const b = (await trees.create({ name: 'b' })).record;
    expect(await trees.discard('a', { deleteBranch: true })).toEqual({ removed: a.path, branchDeleted: true });
    expect(existsSync(a.path)).toBe(false);
    expect(plain(['branch', '--list', 'deft/a'])).toBe('');
    await rm(b.path, { recursive: true });
    expect((await trees.list()).map((w) => [w.name, w.state])).toEqual([['b', 'missing']]);
    expect(await trees.cleanup()).toEqual(['b']);
    expect(plain(['worktree', 'list']).trim().split('\n')).toHaveLength(1);
    expect(plain(['branch', '--list', 'deft/b']).trim()).toBe('deft/b');
  });

  it('discarding with its branch deletes that branch only: a branch made a symbolic ref to main leaves main where it was', async () => {
    const trees = await Worktrees.of(home, repo);
    await trees.create({ name: 'a' });
    const main = plain(['rev-parse', 'main']).trim();
    // What a command in the worktree's sandbox may do: it can write refs/heads/deft/.
    plain(['symbolic-ref', 'refs/heads/deft/a', 'refs/heads/main']);
    expect((await trees.discard('a', { deleteBranch: true })).branchDeleted).toBe(true);
    expect(plain(['rev-parse', '--verify', 'main']).trim()).toBe(main);
    expect(plain(['branch', '--list', 'deft/a'])).toBe('');
  });

  it('in a hostile repository runs nothing (fsmonitor, hooks, filters, merge drivers, signing) and copies nothing through a link', async () => {
    const markers = join(root, 'markers');
    await mkdir(markers);
    const touch = (name: string) => `touch "${join(markers, name)}"; false`;
    await writeFile(join(markers, 'gpg.sh'), `#!/bin/sh\ntouch "${join(markers, 'gpg')}"\n`, { mode: 0o755 });
    for (const hook of ['post-checkout', 'pre-commit', 'post-merge', 'reference-transaction', 'post-index-change'])
      await writeFile(join(repo, '.git', 'hooks', hook), `#!/bin/sh\ntouch "${join(markers, hook)}"\n`, { mode: 0o755 });
    await writeFile(join(repo, '.gitattributes'), '*.txt filter=evil merge=evil\n');
    plain(['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgSign=false', '-c', 'core.fsmonitor=false', 'add', '.gitattributes']);
    plain(['-c', 'core.hooksPath=/dev/null', '-c', 'commit.gpgSign=false', '-c', 'core.fsmonitor=false', 'commit', '-qm', 'attributes']);
    plain(['config', 'core.fsmonitor', touch('fsmonitor')]);
    plain(['config', 'filter.evil.smudge', touch('smudge')]);
    plain(['config', 'filter.evil.clean', touch('clean')]);
    plain(['config', 'merge.evil.driver', touch('driver')]);
    plain(['config', 'commit.gpgSign', 'true']);
    plain(['config', 'gpg.program', join(markers, 'gpg.sh')]);
    // A secret outside the repository, reached through a link the copy globs match, and a linked folder.
    const secret = join(root, 'secret');
    await mkdir(secret);
    await writeFile(join(secret, 'id'), 'top secret\n');
    await symlink(join(secret, 'id'), join(repo, 'config.local'));
    await symlink(secret, join(repo, 'linked'));

    const trees = await Worktrees.of(home, repo);
    const { record, copy } = await trees.create({ name: 'h', copy: ['config.local', 'linked/**', '../secret/id', '/etc/passwd'] });
    expect(copy.copied).toEqual([]);
    expect(copy.skipped.map((s) => s.path).sort()).toEqual(['/etc/passwd', '../secret/id', 'config.local', 'linked'].sort());
    expect(existsSync(join(record.path, 'config.local'))).toBe(false);
    expect(existsSync(join(record.path, 'linked'))).toBe(false);
    await writeFile(join(record.path, 'app.txt'), 'line 1\nhostile\nline 3\n');
    await trees.list();
    expect(await trees.merge('h')).toMatchObject({ status: 'merged' });
    const b = (await trees.create({ name: 'b' })).record;
    const c = (await trees.create({ name: 'c' })).record;
    await writeFile(join(b.path, 'app.txt'), 'line 1\nfrom b\nline 3\n');
    await writeFile(join(c.path, 'app.txt'), 'line 1\nfrom c\nline 3\n');
    expect(await trees.merge('b')).toMatchObject({ status: 'merged' });
    // The driver is replaced by `false`: a conflict, never the repository's program.
    expect(await trees.merge('c')).toMatchObject({ status: 'conflict', files: ['app.txt'] });
    await trees.apply('c');
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(markers)).toEqual(['gpg.sh']);
    // The premise: plain git runs the repository's merge driver on the same merge.
    try {
      plain(['-c', 'core.fsmonitor=false', 'merge-tree', '--write-tree', 'main', 'deft/c']);
    } catch {
      // a conflict
    }
    expect(await readdir(markers)).toContain('driver');
    await trees.discard('c', { deleteBranch: true });
  });
});
