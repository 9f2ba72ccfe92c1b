import { describe, expect, it } from 'vitest';
import type { Environment, TreeChanges } from '#contract/environment';
import { ChangeWatch, MAX_WATCHED_PATHS } from './change-watch';

/** An environment whose tree watch is driven by the test: `report` passes changes, `sync` resolves at once. */
function fakeWatch() {
  let onChanges: (changes: TreeChanges) => void = () => {};
  let syncs = 0;
  const environment = {
    kind: 'local',
    watchTree: async (_root: string, _options: unknown, listener: (changes: TreeChanges) => void) => {
      onChanges = listener;
      return { sync: async () => void syncs++, close: async () => {} };
    },
  } as unknown as Environment;
  const watch = new ChangeWatch(environment, '/ws', { ignore: ['/ws/.git'], fenceDir: '/home/fence' });
  return {
    watch,
    report: (...paths: string[]) => onChanges({ paths }),
    fail: (message: string) => onChanges({ error: new Error(message) }),
    syncs: () => syncs,
  };
}

/** A live watch whose starting point is tree `t1`. */
async function synced() {
  const fake = fakeWatch();
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
});
