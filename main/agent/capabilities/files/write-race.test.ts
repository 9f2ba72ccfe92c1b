import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileToolKit } from '#test-support/file-tools';

let racer: ChildProcess | undefined;
afterEach(() => {
  racer?.kill('SIGKILL');
  racer = undefined;
});

describe('finding 9: a racing process that swaps a folder for a symlink', () => {
  it('cannot make Write land outside the workspace, nor leave temp files there', async () => {
    const kit = await fileToolKit();
    await mkdir(join(kit.workspace, 'dir'));
    const escape = join(kit.outside, 'escape');
    await mkdir(escape);
    // Swap dir <-> a link to the outside folder as fast as a shell can, for as long as the writes go on.
    racer = spawn(
      'bash',
      [
        '-c',
        `cd "${kit.workspace}" && while :; do mv dir dir.real 2>/dev/null; ln -s "${escape}" dir 2>/dev/null; rm -f dir 2>/dev/null; mv dir.real dir 2>/dev/null; done`,
      ],
      { stdio: 'ignore' },
    );
    let written = 0;
    for (let i = 0; i < 300; i++) {
      const { result } = await kit.call('Write', { path: `dir/file-${i}.txt`, content: `content ${i}\n` });
      if (!result.isError) written++;
    }
    racer.kill('SIGKILL');
    const leaked = await readdir(escape);
    expect(leaked, leaked.join(', ')).toEqual([]);
    expect(written).toBeGreaterThan(0);
  }, 120_000);
});
