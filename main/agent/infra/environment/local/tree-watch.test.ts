import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import type { TreeWatch } from '#contract/environment';
import { treeWatchSupported, watchTreeLocal } from './tree-watch';

let watch: TreeWatch | null = null;
afterEach(async () => {
  await watch?.close();
  watch = null;
});

describe.runIf(treeWatchSupported())('watchTreeLocal (inotify)', () => {
  it('has reported every change made before sync resolves, ignoring what it was told to', async () => {
    const root = await tempDir('deft-tree-watch-');
    const fenceDir = join(await tempDir('deft-tree-fence-'), 'fence');
    await mkdir(join(root, '.git'));
    await mkdir(join(root, 'keep'));
    await writeFile(join(root, 'keep', 'old.txt'), 'old');
    const seen = new Set<string>();
    watch = await watchTreeLocal(root, { ignore: [join(root, '.git')], fenceDir }, (changes) => {
      if ('paths' in changes) for (const path of changes.paths) seen.add(path);
    });
    for (let round = 0; round < 3; round++) {
      const made = Array.from({ length: 200 }, (_, i) => join(root, `d${i % 7}`, `r${round}-f${i}.txt`));
      await Promise.all([...new Set(made.map((p) => join(p, '..')))].map((d) => mkdir(d, { recursive: true })));
      await Promise.all(made.map((p) => writeFile(p, `${round}`)));
      await writeFile(join(root, '.git', `index${round}`), 'ignored');
      await rename(join(root, 'keep'), join(root, `kept${round}`));
      await rename(join(root, `kept${round}`), join(root, 'keep'));
      await watch.sync();
      // A file made in a folder made just before may come before the folder is watched: the folder is reported then.
      for (const path of made) expect(seen.has(path) || seen.has(join(path, '..'))).toBe(true);
      expect([...seen].some((p) => p.includes('/.git/'))).toBe(false);
      // Moved away and back in one batch: reported as the folder it is (its contents are looked at through it).
      expect(seen.has(join(root, 'keep'))).toBe(true);
      seen.clear();
    }
    await rm(join(root, 'keep'), { recursive: true });
    await watch.sync();
    expect(seen.has(join(root, 'keep'))).toBe(true);
  });

  it('neither watches nor walks a folder it is told to skip, and reports one that appears as a path only', async () => {
    const root = await tempDir('deft-tree-watch-');
    const fenceDir = join(await tempDir('deft-tree-fence-'), 'fence');
    await mkdir(join(root, 'node_modules', 'dep'), { recursive: true });
    await mkdir(join(root, 'src'));
    const asked: string[] = [];
    const seen = new Set<string>();
    const skipFolder = (path: string) => (asked.push(path), path.endsWith('/node_modules') || path.endsWith('/dist'));
    watch = await watchTreeLocal(root, { ignore: [], fenceDir, skipFolder }, (changes) => {
      if ('paths' in changes) for (const path of changes.paths) seen.add(path);
    });
    expect(asked).not.toContain(join(root, 'node_modules', 'dep'));
    await writeFile(join(root, 'node_modules', 'dep', 'x.js'), 'x');
    await writeFile(join(root, 'node_modules', 'y.js'), 'y');
    await writeFile(join(root, 'src', 'a.ts'), 'a');
    await mkdir(join(root, 'dist', 'deep'), { recursive: true });
    await watch.sync();
    await writeFile(join(root, 'dist', 'deep', 'out.js'), 'out');
    await watch.sync();
    expect([...seen].sort()).toEqual([join(root, 'dist'), join(root, 'src', 'a.ts')]);
  });

  it('follows folders as they appear and move: what is made in them later is reported under their new paths', async () => {
    const root = await tempDir('deft-tree-watch-');
    const fenceDir = join(await tempDir('deft-tree-fence-'), 'fence');
    const seen = new Set<string>();
    watch = await watchTreeLocal(root, { ignore: [], fenceDir }, (changes) => {
      if ('paths' in changes) for (const path of changes.paths) seen.add(path);
    });
    // A deep tree made at once (faster than any watch could be placed): every folder and file in it reported.
    await mkdir(join(root, 'a', 'b', 'c'), { recursive: true });
    await writeFile(join(root, 'a', 'b', 'c', 'deep.txt'), '1');
    await watch.sync();
    for (const path of ['a', 'a/b', 'a/b/c', 'a/b/c/deep.txt']) expect(seen.has(join(root, path)), path).toBe(true);
    seen.clear();
    // Renamed: a file written in it afterwards is reported at its new path, not the old one.
    await rename(join(root, 'a'), join(root, 'z'));
    await watch.sync();
    seen.clear();
    await writeFile(join(root, 'z', 'b', 'c', 'later.txt'), '2');
    await watch.sync();
    expect(seen.has(join(root, 'z', 'b', 'c', 'later.txt'))).toBe(true);
    expect([...seen].some((p) => p.startsWith(join(root, 'a') + '/'))).toBe(false);
  });
});
