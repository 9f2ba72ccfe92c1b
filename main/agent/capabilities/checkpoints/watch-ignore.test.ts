import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { WatchIgnore, parseIgnoreFile } from './watch-ignore';

describe('WatchIgnore: the folders the file watcher may skip', () => {
  it('uses only plain rules, and none from a file holding a negation', () => {
    expect(parseIgnoreFile('# c\nnode_modules/\n/build\nout/gen/\n*.log\ncache*/\n\\#x\nsp ace/\n../up\n')).toEqual({
      names: new Set(['node_modules']),
      paths: new Set(['build', 'out/gen']),
    });
    expect(parseIgnoreFile('node_modules/\n!node_modules/keep/\n')).toBe('blocked');
  });

  it('skips an ignored folder the store holds nothing in; never a tracked one, one under a negation, or under a linked .gitignore', async () => {
    const ws = await tempDir('deft-watch-ignore-');
    const tracked = new Set(['vendor']);
    const ignore = () => new WatchIgnore(ws, async (path) => tracked.has(path));
    await writeFile(join(ws, '.gitignore'), 'node_modules/\nvendor/\n/build\nout/gen\n');
    for (const dir of ['node_modules', 'vendor', 'build', 'a/build', 'out/gen', 'a/out/gen', 'b/node_modules', 'c/node_modules', 'd/node_modules'])
      await mkdir(join(ws, dir), { recursive: true });
    await writeFile(join(ws, 'b', '.gitignore'), '!keep\n');
    await writeFile(join(ws, 'elsewhere'), 'x\n');
    await symlink(join(ws, 'elsewhere'), join(ws, 'c', '.gitignore'));
    const watch = ignore();
    const skips = async (dir: string) => watch.skip(join(ws, dir));
    expect(await skips('node_modules')).toBe(true);
    expect(await skips('out/gen')).toBe(true);
    expect(await skips('build')).toBe(true);
    expect(await skips('vendor')).toBe(false); // HEAD holds files in it
    expect(await skips('a/build')).toBe(false); // anchored at the workspace's top
    expect(await skips('a/out/gen')).toBe(false);
    expect(await skips('b/node_modules')).toBe(false); // a negation below could bring it back
    expect(await skips('c/node_modules')).toBe(false); // a linked .gitignore: its content can change unseen
    expect(await skips('d/node_modules')).toBe(true);
    expect(await watch.skip(ws)).toBe(false);
    // A store without HEAD yet (tracked says yes to everything): nothing is skipped.
    expect(await new WatchIgnore(ws, async () => true).skip(join(ws, 'node_modules'))).toBe(false);
  });
});
