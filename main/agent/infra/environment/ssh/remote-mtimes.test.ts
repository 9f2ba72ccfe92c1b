import { spawnSync } from 'node:child_process';
import { chmod, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScriptRequest, ScriptResult } from '#contract/environment';
import { tempDir } from '#test-support/harness';
import { MTIMES_PER_SCRIPT, batchMtimes, parseMtimes } from './remote-mtimes';

/** The script run by this machine's sh (as the helper shell runs it there), with PATH as given. */
function shell(path = process.env.PATH ?? ''): (request: ScriptRequest) => Promise<ScriptResult> {
  return async (request) => {
    const done = spawnSync('/bin/sh', ['-c', request.script], { cwd: request.cwd, input: request.input, env: { PATH: path } });
    return { stdout: done.stdout, stderr: done.stderr, code: done.status ?? 1 };
  };
}

describe('modification times in one batch (the remote helper shell)', () => {
  it('gives each path its whole-second time, in order, following links; -Infinity for a missing one', async () => {
    const dir = await tempDir('deft-mtimes-');
    const names = ['plain.ts', 'with space.ts', 'ünïcode.ts', "quote'd.ts", 'back\\slash %n.ts'];
    for (const [i, name] of names.entries()) {
      await writeFile(join(dir, name), 'x');
      await utimes(join(dir, name), 1_600_000_000 + i, 1_600_000_000 + i * 10);
    }
    await symlink(join(dir, 'plain.ts'), join(dir, 'link.ts'));
    const paths = [...names, 'link.ts', 'missing.ts'].map((name) => join(dir, name));
    const times = await batchMtimes(shell(), dir, paths);
    expect([...times!]).toEqual([1_600_000_000_000, 1_600_000_010_000, 1_600_000_020_000, 1_600_000_030_000, 1_600_000_040_000, 1_600_000_000_000, -Infinity]);
  });

  it('runs one script per few thousand paths, not one per file', async () => {
    const dir = await tempDir('deft-mtimes-many-');
    await writeFile(join(dir, 'a'), 'x');
    let scripts = 0;
    const run = shell();
    const counting = (request: ScriptRequest) => (scripts++, run(request));
    const paths = Array.from({ length: MTIMES_PER_SCRIPT + 10 }, (_, i) => (i === 0 ? join(dir, 'a') : join(dir, `gone-${i}`)));
    const times = await batchMtimes(counting, dir, paths);
    expect(scripts).toBe(2);
    expect(times![0]).toBeGreaterThan(0);
    expect(times!.slice(1).every((t) => t === -Infinity)).toBe(true);
  });

  it('says it cannot (null) where `stat` has no --printf, so the caller stats another way', async () => {
    const bin = await tempDir('deft-mtimes-bin-');
    // A `stat` as BusyBox's or BSD's: --printf unknown.
    await writeFile(join(bin, 'stat'), '#!/bin/sh\necho "stat: unrecognized option" >&2\nexit 1\n');
    await chmod(join(bin, 'stat'), 0o755);
    await symlink('/usr/bin/xargs', join(bin, 'xargs'));
    expect(await batchMtimes(shell(bin), bin, [join(bin, 'stat')])).toBeNull();
  });

  it('reads records by NUL, so a name with spaces or a newline is kept whole', () => {
    const out = Buffer.from('100 /w/a b\u0000200 /w/c\nd\u0000', 'utf8');
    expect([...parseMtimes(['/w/c\nd', '/w/a b', '/w/none'], out)]).toEqual([200_000, 100_000, -Infinity]);
  });
});
