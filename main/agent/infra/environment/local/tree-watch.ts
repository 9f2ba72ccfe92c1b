import { createRequire } from 'node:module';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type * as ParcelWatcher from '@parcel/watcher';
import type { TreeChanges, TreeWatch, TreeWatchOptions } from '#contract/environment';

/**
 * A recursive watch of a local folder with @parcel/watcher's inotify backend (Linux only: the fence below relies on
 * it), loaded the first time a watch is asked for — never on a text-only turn or `deft --help`.
 *
 * The fence (`sync`): every watch of this process shares one inotify descriptor and one reading thread, which hands
 * events to the watches in the order the kernel queued them, and one debounce thread passes every watch's pending
 * events to JavaScript in each of its rounds, one round after another. A file created in the fence folder (watched
 * too, on the same descriptor) after a command ended is queued after every change the command made; when its event
 * arrives, the round that carried it has handed over (or is handing over) the folder's earlier events. A second fence
 * file, seen in a later round, means that round has finished; two more turns of the event loop let the folder's batch
 * (queued before the second fence's) run its callback. Then everything changed before `sync` began has been reported.
 */

/** How long a fence may take before the watch is taken to be broken (the caller then scans). */
const FENCE_TIMEOUT_MS = 5_000;

const load = createRequire(import.meta.url);
let parcel: typeof ParcelWatcher | Error | undefined;

/** The native watcher, or the error loading it gave (a platform without a prebuilt module): loaded once. */
function parcelWatcher(): typeof ParcelWatcher {
  if (parcel === undefined) {
    try {
      parcel = load('@parcel/watcher') as typeof ParcelWatcher;
    } catch (error) {
      parcel = error instanceof Error ? error : new Error(String(error));
    }
  }
  if (parcel instanceof Error) throw new Error(`The file watcher could not be loaded: ${parcel.message}`);
  return parcel;
}

/** Whether this platform's watcher can fence (see above): Linux's inotify. */
export function treeWatchSupported(): boolean {
  return process.platform === 'linux';
}

let fences = 0;

export async function watchTreeLocal(root: string, options: TreeWatchOptions, onChanges: (changes: TreeChanges) => void): Promise<TreeWatch> {
  const watcher = parcelWatcher();
  const backend = { backend: 'inotify' as const };
  await mkdir(options.fenceDir, { recursive: true, mode: 0o700 });
  const waiting = new Map<string, () => void>();
  let failed: Error | null = null;
  const fail = (error: Error) => {
    failed ??= error;
    onChanges({ error });
  };
  const fenceSub = await watcher.subscribe(
    options.fenceDir,
    (error, events) => {
      if (error) return fail(error);
      for (const event of events) {
        if (event.type !== 'create') continue;
        waiting.get(event.path)?.();
        waiting.delete(event.path);
        void rm(event.path, { force: true }).catch(() => {});
      }
    },
    backend,
  );
  let rootSub: ParcelWatcher.AsyncSubscription;
  try {
    rootSub = await watcher.subscribe(
      root,
      (error, events) => {
        if (error) return fail(error);
        if (events.length) onChanges({ paths: events.map((e) => e.path), created: events.filter((e) => e.type === 'create').map((e) => e.path) });
      },
      { ...backend, ignore: [...options.ignore] },
    );
  } catch (error) {
    await fenceSub.unsubscribe().catch(() => {});
    throw error;
  }

  const fence = async () => {
    const path = join(options.fenceDir, `${process.pid}-${++fences}-${Math.random().toString(36).slice(2)}`);
    let timer: NodeJS.Timeout | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      waiting.set(path, resolve);
      timer = setTimeout(() => reject(new Error('The file watcher did not report its fence in time.')), FENCE_TIMEOUT_MS);
    });
    try {
      await writeFile(path, '', { flag: 'wx', mode: 0o600 });
      await seen;
    } finally {
      clearTimeout(timer);
      waiting.delete(path);
    }
  };

  return {
    sync: async () => {
      if (failed) throw failed;
      await fence();
      await fence();
      await yieldToLoop();
      await yieldToLoop();
      if (failed) throw failed;
    },
    close: async () => {
      await Promise.allSettled([rootSub.unsubscribe(), fenceSub.unsubscribe()]);
    },
  };
}
