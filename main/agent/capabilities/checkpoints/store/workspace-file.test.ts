import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLarge, readSmall } from './workspace-file';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deft-ws-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('reading a changed file for a checkpoint', () => {
  it('reads a regular file', async () => {
    await writeFile(join(dir, 'a.txt'), 'hello');
    expect(readSmall(join(dir, 'a.txt'))?.toString()).toBe('hello');
    expect((await readLarge(join(dir, 'a.txt')))?.toString()).toBe('hello');
  });

  it('does not follow a symbolic link swapped in for the file (to a secret outside the workspace)', async () => {
    await writeFile(join(dir, 'secret'), 'private key');
    await symlink(join(dir, 'secret'), join(dir, 'a.txt'));
    expect(readSmall(join(dir, 'a.txt'))).toBeNull();
    expect(await readLarge(join(dir, 'a.txt'))).toBeNull();
  });

  it.runIf(process.platform !== 'win32')('does not wait on a FIFO swapped in for the file', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    expect(readSmall(join(dir, 'pipe'))).toBeNull();
    expect(await readLarge(join(dir, 'pipe'))).toBeNull();
  });

  it('gives null for a file that is gone', async () => {
    expect(readSmall(join(dir, 'missing'))).toBeNull();
    expect(await readLarge(join(dir, 'missing'))).toBeNull();
  });
});
