import { spawn } from 'node:child_process';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { replaceFileAtomic } from './atomic-write';

let dir: string;
beforeEach(async () => {
  dir = await tempDir('deft-atomic-');
});
afterEach(async () => {
  const { rm } = await import('node:fs/promises');
  await rm(dir, { recursive: true, force: true });
});

const SIZE = 4 * 1024 * 1024;
const module = fileURLToPath(new URL('./atomic-write.ts', import.meta.url));

/** A child process that rewrites `target` forever, each time with one repeated digit; killed mid-write. */
function writer(target: string) {
  const script = `
    import { replaceFileAtomic } from ${JSON.stringify(module)};
    for (let i = 1; ; i++) {
      await replaceFileAtomic(${JSON.stringify(target)}, String(i % 10).repeat(${SIZE}));
      if (i === 2) process.stdout.write('ready\\n');
    }`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('replaceFileAtomic', () => {
  it('leaves the old or the new content, never a mix, when the process dies mid-write', async () => {
    const target = join(dir, 'data.txt');
    await writeFile(target, '0'.repeat(SIZE));
    for (const delay of [0, 7, 23]) {
      const child = writer(target);
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
      });
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const content = await readFile(target, 'utf8');
      expect(content.length).toBe(SIZE);
      expect(new Set(content).size).toBe(1);
    }
    // Only the target and at most temp files of killed writers remain; the target itself is never a temp.
    const names = await readdir(dir);
    expect(names.filter((n) => !/^\.data\.txt\.deft-\d+-[0-9a-f]+\.tmp$/.test(n))).toEqual(['data.txt']);
  }, 60_000);

  it('sweeps the temp files of writers that died, and only theirs, at its first write in a folder', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => dead.once('exit', r));
    const orphan = `.data.txt.deft-${dead.pid}-0a1b2c.tmp`;
    const live = `.data.txt.deft-${process.ppid}-3d4e5f.tmp`;
    await writeFile(join(dir, orphan), 'half');
    await writeFile(join(dir, live), 'in progress');
    await writeFile(join(dir, '.notes.deft-7.tmp.bak'), 'not ours');
    await replaceFileAtomic(join(dir, 'data.txt'), 'x');
    expect((await readdir(dir)).sort()).toEqual(['.data.txt.deft-' + process.ppid + '-3d4e5f.tmp', '.notes.deft-7.tmp.bak', 'data.txt'].sort());
  });

  it('keeps an existing file mode and removes its temp file when the write fails', async () => {
    const target = join(dir, 'tool.sh');
    await writeFile(target, 'echo 1\n', { mode: 0o751 });
    await replaceFileAtomic(target, 'echo 2\n');
    expect((await stat(target)).mode & 0o777).toBe(0o751);
    await expect(replaceFileAtomic(join(dir, 'missing-folder', 'x.txt'), 'x')).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual(['tool.sh']);
  });
});
