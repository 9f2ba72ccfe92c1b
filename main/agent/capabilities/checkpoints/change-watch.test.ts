import { mkdir, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment, TreeChanges } from '#contract/environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { treeWatchSupported } from '#infra/environment/local/tree-watch';
import { tempDir } from '#test-support/harness';
import { ChangeWatch, MAX_WATCHED_PATHS } from './change-watch';

/**
 * An environment whose tree watch is driven by the test: `report` passes changes, `sync` resolves at once; `folders`
 * lists the folders of the workspace (each with its subfolders' names) for the check of new folders.
 */
function fakeWatch(folders: Record<string, string[]> = {}) {
  let onChanges: (changes: TreeChanges) => void = () => {};
  let syncs = 0;
  let starts = 0;
  const environment = {
    kind: 'local',
    path: posix,
    lstat: async (path: string) => ({ isDirectory: () => path in folders }),
    readdir: async (path: string) => (folders[path] ?? []).map((name) => ({ name, type: 'directory' })),
    watchTree: async (_root: string, _options: unknown, listener: (changes: TreeChanges) => void) => {
      starts++;
      onChanges = listener;
      return { sync: async () => void syncs++, close: async () => {} };
    },
  } as unknown as Environment;
  const watch = new ChangeWatch(environment, '/ws', { ignore: ['/ws/.git'], fenceDir: '/home/fence' });
  return {
    watch,
    report: (...paths: string[]) => onChanges({ paths, created: [] }),
    create: (...paths: string[]) => onChanges({ paths, created: paths }),
    fail: (message: string) => onChanges({ error: new Error(message) }),
    syncs: () => syncs,
    starts: () => starts,
  };
}

/** A live watch whose starting point is tree `t1`. */
async function synced(folders: Record<string, string[]> = {}) {
  const fake = fakeWatch(folders);
  await fake.watch.start();
  fake.watch.scanned(fake.watch.beginScan(), 't1');
  return fake;
}

describe('ChangeWatch', () => {
  it('gives the paths reported since its starting point, after a fence, and only while HEAD is that point', async () => {
    const { watch, report, syncs } = await synced();
    report('/ws/src/a.ts', '/ws/b.txt', '/elsewhere/c.txt');
    expect(await watch.changedSince('t2')).toBeNull(); // HEAD moved (another session or process): a scan
    expect(syncs()).toBe(0);
    expect((await watch.changedSince('t1'))?.sort()).toEqual(['b.txt', 'src/a.ts']);
    expect(syncs()).toBe(1);
    watch.narrowed('t1', 't3');
    expect(await watch.changedSince('t3')).toEqual([]);
  });

  it('scans before it has a starting point, and once it did not start', async () => {
    const fake = fakeWatch();
    expect(await fake.watch.changedSince('t1')).toBeNull();
    await fake.watch.start();
    expect(await fake.watch.changedSince('t1')).toBeNull(); // live, but no scan began while it was
    const failing = new ChangeWatch({ kind: 'local', watchTree: () => Promise.reject(new Error('no module')) } as unknown as Environment, '/ws', {
      ignore: [],
      fenceDir: '/f',
    });
    await failing.start();
    failing.scanned(failing.beginScan(), 't1');
    expect(await failing.changedSince('t1')).toBeNull();
    expect(failing.problem).toMatch(/no module/);
  });

  it('scans after too many paths, a changed ignore file, a failed capture or a failed watch', async () => {
    const many = await synced();
    many.report(...Array.from({ length: MAX_WATCHED_PATHS + 1 }, (_, i) => `/ws/f${i}`));
    expect(await many.watch.changedSince('t1')).toBeNull();
    many.watch.scanned(many.watch.beginScan(), 't2');
    expect(await many.watch.changedSince('t2')).toEqual([]);

    const ignores = await synced();
    ignores.report('/ws/sub/.gitignore');
    expect(await ignores.watch.changedSince('t1')).toBeNull();

    const lost = await synced();
    lost.watch.lost();
    expect(await lost.watch.changedSince('t1')).toBeNull();

    const failed = await synced();
    failed.fail('inotify read failed');
    expect(await failed.watch.changedSince('t1')).toBeNull();
    expect(failed.watch.problem).toMatch(/inotify read failed/);
    failed.watch.scanned(failed.watch.beginScan(), 't2');
    expect(await failed.watch.changedSince('t2')).toBeNull();
  });

  it('starts again (and scans) when a new folder holds folders it did not report: they may be unwatched', async () => {
    const folders = { '/ws/a': ['b'], '/ws/a/b': ['c'], '/ws/a/b/c': [], '/ws/n': [] };
    const seen = await synced(folders);
    // Every folder inside the new one was reported too: the watch saw each one made, so it watches them.
    seen.create('/ws/a', '/ws/a/b', '/ws/a/b/c', '/ws/n');
    expect((await seen.watch.changedSince('t1'))?.sort()).toEqual(['a', 'a/b', 'a/b/c', 'n']);
    expect(seen.starts()).toBe(1);

    const missed = await synced(folders);
    // `mkdir -p a/b/c` faster than the watch, or a tree moved in: a/b was never reported.
    missed.create('/ws/a');
    expect(await missed.watch.changedSince('t1')).toBeNull();
    expect(missed.starts()).toBe(2);
    expect(missed.watch.live).toBe(true);
    missed.watch.scanned(missed.watch.beginScan(), 't2');
    expect(await missed.watch.changedSince('t2')).toEqual([]);
  });

  it('starts again (deciding afresh what it skips) after an ignore file changed, also one reported past the limit', async () => {
    for (const overflowFirst of [false, true]) {
      const fake = await synced();
      if (overflowFirst) fake.report(...Array.from({ length: MAX_WATCHED_PATHS + 1 }, (_, i) => `/ws/f${i}`));
      fake.report('/ws/sub/.gitignore');
      expect(fake.starts()).toBe(1);
      expect(await fake.watch.changedSince('t1')).toBeNull();
      expect(fake.starts()).toBe(2);
      // The scan after it is the new starting point.
      fake.watch.scanned(fake.watch.beginScan(), 't2');
      fake.report('/ws/a.txt');
      expect(await fake.watch.changedSince('t2')).toEqual(['a.txt']);
      expect(fake.starts()).toBe(2);
    }
  });

  it.runIf(treeWatchSupported())(
    'keeps what is reported while it looks into a new folder for the next capture (a command writing as the sandbox made its mount points)',
    async () => {
      const workspace = await tempDir('deft-change-watch-');
      const fenceDir = join(await tempDir('deft-change-fence-'), 'fence');
      const local = localEnvironment();
      let reported: () => void = () => {};
      const lateReported = new Promise<void>((resolve) => (reported = resolve));
      let wrote = false;
      // The real local machine and its inotify watch; the look into the new folder is where the command writes.
      const environment = Object.assign(Object.create(local) as Environment, {
        watchTree: (root: string, options: Parameters<NonNullable<Environment['watchTree']>>[1], listener: (changes: TreeChanges) => void) =>
          local.watchTree!(root, options, (changes) => {
            listener(changes);
            if ('paths' in changes && changes.paths.includes(join(workspace, 'late.txt'))) reported();
          }),
        lstat: async (path: string) => {
          if (path === join(workspace, 'made') && !wrote) {
            wrote = true;
            await writeFile(join(workspace, 'late.txt'), 'late');
            await lateReported;
          }
          return local.lstat(path);
        },
      });
      const watch = new ChangeWatch(environment, workspace, { ignore: [], fenceDir });
      try {
        await watch.start();
        expect(watch.live).toBe(true);
        watch.scanned(watch.beginScan(), 't1');
        await mkdir(join(workspace, 'made'));
        // The capture after the fence looks at the new folder; late.txt came after the fence, while it was looked into.
        expect(await watch.changedSince('t1')).toEqual(['made']);
        expect(wrote).toBe(true);
        watch.narrowed('t1', 't2');
        // It is still pending: the next capture looks at it.
        expect(await watch.changedSince('t2')).toEqual(['late.txt']);
      } finally {
        await watch.close();
      }
    },
  );
});
