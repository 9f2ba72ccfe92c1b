import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { type AskModel, cleanDraft, draftMergeMessage, mergeDiff } from './draft';
import { Worktrees } from './worktrees';

let root: string;
let repo: string;
let home: string;
const plain = (args: string[], cwd = repo) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

beforeEach(async () => {
  root = await tempDir('deft-wt-draft-');
  repo = join(root, 'repo');
  home = join(root, 'home');
  await mkdir(repo);
  await mkdir(home);
  plain(['init', '-q', '-b', 'main']);
  plain(['config', 'user.email', 'a@b.c']);
  plain(['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'line 1\nline 2\n');
  plain(['add', '.']);
  plain(['commit', '-qm', 'first']);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a drafted merge message', { timeout: 90_000 }, () => {
  it('sends the diff against the base, cut to its bound, and takes the reply cleaned', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'big' });
    await writeFile(join(record.path, 'app.txt'), 'line 1\nLINE 2\n');
    await writeFile(join(record.path, 'huge.txt'), 'x'.repeat(50_000) + '\n');
    const small = await mergeDiff(record, 1_000);
    expect(small.files).toEqual(['app.txt', 'huge.txt']);
    expect(small.cut).toBe(true);
    expect(small.text.length).toBeLessThan(1_200);
    let asked = '';
    const ask: AskModel = async ({ prompt }) => {
      asked = prompt;
      return '```\nCapitalise line 2\n\nAnd add a huge file.\n```';
    };
    const drafted = await draftMergeMessage(record, { squash: false, sessionTitle: 'Shout', ask });
    expect(drafted).toEqual({ message: 'Capitalise line 2\n\nAnd add a huge file.', drafted: true });
    expect(asked).toContain('deft/big onto main');
    expect(asked).toContain('+LINE 2');
    expect(asked).toContain('Shout');
    expect(asked.length).toBeLessThan(14_000);
  });

  it('falls back to the default message, saying why, when the model fails, is slow or says nothing', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'fb' });
    await writeFile(join(record.path, 'app.txt'), 'changed\n');
    const failing = await draftMergeMessage(record, { squash: true, ask: () => Promise.reject(new Error('HTTP 500')) });
    expect(failing).toMatchObject({ message: 'fb: changes made in Deft worktree deft/fb', drafted: false, note: expect.stringContaining('HTTP 500') });
    const slow = await draftMergeMessage(record, {
      squash: false,
      timeoutMs: 50,
      ask: ({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    expect(slow).toMatchObject({ message: "Merge branch 'deft/fb' (Deft worktree)", drafted: false, note: expect.stringContaining('did not answer') });
    expect(await draftMergeMessage(record, { squash: false, ask: async () => '  \n ' })).toMatchObject({ drafted: false });
    expect(await draftMergeMessage(record, { squash: false })).toMatchObject({ drafted: false, note: expect.stringContaining('No model') });
  });

  it('a message that looks like git options is only a message: nothing is injected', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'inject' });
    await writeFile(join(record.path, 'app.txt'), 'changed\n');
    const message = cleanDraft('--amend\n\n-p HEAD --author=evil <e@x>\u001b[31m');
    expect(message).toBe('--amend\n\n-p HEAD --author=evil <e@x>[31m');
    const outcome = await trees.merge('inject', { squash: true, message });
    expect(outcome).toMatchObject({ status: 'merged', squashed: true });
    expect(plain(['log', '-1', '--format=%B%n%an', 'main'])).toBe(`${message}\nA\n`);
    expect(plain(['rev-list', '--count', 'main'])).toBe('2\n');
  });
});

describe('create branch only', { timeout: 90_000 }, () => {
  it('commits the uncommitted changes on the branch, removes the worktree and keeps the branch', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'keep', copy: [] });
    await writeFile(join(record.path, 'app.txt'), 'kept\n');
    expect(await trees.keepBranch('keep', '-m oops --no-verify')).toEqual({ branch: 'deft/keep', committed: true, removed: record.path });
    expect(existsSync(record.path)).toBe(false);
    expect(plain(['log', '-1', '--format=%s', 'deft/keep'])).toBe('-m oops --no-verify\n');
    expect(plain(['show', 'deft/keep:app.txt'])).toBe('kept\n');
    // The main checkout is as it was, and the worktree is forgotten.
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('line 1\nline 2\n');
    expect(await trees.list()).toEqual([]);
  });

  it('with nothing uncommitted it only removes the worktree', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'clean' });
    expect(await trees.keepBranch('clean')).toEqual({ branch: 'deft/clean', committed: false, removed: record.path });
    expect(plain(['branch', '--list', 'deft/clean'])).toContain('deft/clean');
  });
});

describe('a conflict handed to the worktree', { timeout: 90_000 }, () => {
  it('merges the base into the worktree’s branch there: markers only in the worktree, the main checkout’s uncommitted work untouched, both sides reachable', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'clash' });
    // The worktree's change, left uncommitted; the base's change, committed; and uncommitted work in the main checkout.
    await writeFile(join(record.path, 'app.txt'), 'line 1\nWORKTREE\n');
    await writeFile(join(repo, 'app.txt'), 'line 1\nBASE\n');
    plain(['commit', '-qam', 'base change']);
    await writeFile(join(repo, 'app.txt'), 'line 1\nBASE\nuncommitted in main\n');
    await writeFile(join(repo, 'notes.txt'), 'untracked in main\n');
    const mainHead = plain(['rev-parse', 'HEAD']);
    expect(await trees.merge('clash')).toMatchObject({ status: 'conflict', files: ['app.txt'] });

    const handed = await trees.handConflict('clash');
    expect(handed).toMatchObject({ status: 'conflict', files: ['app.txt'], path: record.path, branch: 'deft/clash', baseBranch: 'main' });
    expect(handed.prompt).toContain('- app.txt');
    expect(handed.prompt).toContain(`do not touch the main checkout at ${repo}`);
    const marked = await readFile(join(record.path, 'app.txt'), 'utf8');
    expect(marked).toContain('<<<<<<<');
    expect(marked).toContain('WORKTREE');
    expect(marked).toContain('BASE');
    // The main checkout: same HEAD, same uncommitted and untracked files, no merge in progress.
    expect(plain(['rev-parse', 'HEAD'])).toBe(mainHead);
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('line 1\nBASE\nuncommitted in main\n');
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe('untracked in main\n');
    expect(existsSync(join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
    // Nothing lost: the worktree's change is committed on its branch, the base's is on main.
    expect(plain(['show', 'deft/clash:app.txt'])).toBe('line 1\nWORKTREE\n');
    expect(plain(['show', 'main:app.txt'])).toBe('line 1\nBASE\n');
    // Asked again while the merge is in progress: the same files, nothing redone.
    expect(await trees.handConflict('clash')).toMatchObject({ status: 'conflict', files: ['app.txt'] });

    // Resolved there (as the agent would), it merges onto main (once the main checkout's edit of that file is put away).
    await writeFile(join(record.path, 'app.txt'), 'line 1\nBASE and WORKTREE\n');
    plain(['add', 'app.txt'], record.path);
    plain(['commit', '-q', '--no-edit'], record.path);
    expect(await trees.merge('clash')).toMatchObject({ status: 'dirty', files: ['app.txt'] });
    plain(['checkout', '--', 'app.txt']);
    expect(await trees.merge('clash')).toMatchObject({ status: 'merged' });
    expect(await readFile(join(repo, 'notes.txt'), 'utf8')).toBe('untracked in main\n');
    expect(plain(['show', 'main:app.txt'])).toBe('line 1\nBASE and WORKTREE\n');
  });

  it('a base that merges in cleanly is committed in the worktree', async () => {
    const trees = await Worktrees.of(home, repo);
    const { record } = await trees.create({ name: 'calm' });
    await writeFile(join(record.path, 'other.txt'), 'mine\n');
    await writeFile(join(repo, 'app.txt'), 'line 1\nline 2\nmore\n');
    plain(['commit', '-qam', 'base change']);
    expect(await trees.handConflict('calm')).toMatchObject({ status: 'clean', files: [] });
    expect(await readFile(join(record.path, 'app.txt'), 'utf8')).toBe('line 1\nline 2\nmore\n');
    expect(plain(['log', '-1', '--format=%s', 'deft/calm'])).toContain('Merge main into deft/calm');
  });
});
