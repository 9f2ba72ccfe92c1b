import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { statusPaths } from './status';

let dir = '';
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('statusPaths', () => {
  it('after a seeding (an index and no HEAD), lists only the files that differ from the index, and untracked ones', async () => {
    dir = await tempDir('deft-status-');
    for (const name of ['same.txt', 'changed.txt', 'gone.txt']) await writeFile(join(dir, name), `${name}\n`);
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'same.ts'), 'x\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir });
    git('init', '-q');
    git('add', '-A');
    await writeFile(join(dir, 'changed.txt'), 'changed\n');
    await rm(join(dir, 'gone.txt'));
    await writeFile(join(dir, 'new.txt'), 'new\n');
    const status = git('status', '--porcelain=v2', '-z', '--no-renames', '--untracked-files=all');
    // Without HEAD every index entry differs from it; the files that match the index need no look.
    expect(statusPaths(status).sort()).toEqual(['changed.txt', 'gone.txt', 'new.txt', 'same.txt', 'sub/same.ts']);
    expect(statusPaths(status, { filesOnly: true }).sort()).toEqual(['changed.txt', 'gone.txt', 'new.txt']);
  });
});
