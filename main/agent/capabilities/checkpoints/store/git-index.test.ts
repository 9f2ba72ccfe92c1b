import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { readGitIndex, readIndex } from './git-index';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const PATHS = ['a.txt', 'src/b.ts', 'src/deep/c/d.ts', 'src/deep/c/é.ts', 'src/deep/e.ts', 'src/f.ts', 'zz/long-name-that-shares-nothing.txt'];

describe('readGitIndex', () => {
  it.each([2, 3, 4])('reads the paths and sizes of a version %i index as git lists them', async (version) => {
    const repo = await tempDir('deft-git-index-');
    dirs.push(repo);
    for (const [i, path] of PATHS.entries()) {
      await mkdir(join(repo, path, '..'), { recursive: true });
      await writeFile(join(repo, path), 'x'.repeat(i + 1));
    }
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).toString();
    git('init', '-q');
    git('add', '-A');
    git('update-index', '--index-version', String(version));
    const entries = readGitIndex(await readFile(join(repo, '.git', 'index')));
    expect(entries.map((e) => e.path)).toEqual(git('ls-files', '-z').split('\0').filter(Boolean));
    expect(entries.map((e) => e.size)).toEqual(entries.map((e) => PATHS.indexOf(e.path) + 1));
    // With a selection, only the entries it selects: a path the pattern matches, one that is not ASCII, a size over the limit.
    const selected = readIndex(await readFile(join(repo, '.git', 'index')), { path: /deep\/e|^a\./i, size: 6 });
    expect(selected.count).toBe(PATHS.length);
    expect(selected.entries.map((e) => e.path).sort()).toEqual(['a.txt', 'src/deep/c/é.ts', 'src/deep/e.ts', 'zz/long-name-that-shares-nothing.txt']);
  });
});
