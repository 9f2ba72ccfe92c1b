import { type FSWatcher, watch } from 'node:fs';
import { type Dirent, readdirSync } from 'node:fs';
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { TreeChanges, TreeWatch, TreeWatchOptions } from '#contract/environment';

/**
 * A recursive watch of a local folder: one `fs.watch` per folder (Linux's inotify, through libuv), no native module.
 *
 * The fence (`sync`): every `fs.watch` of this process shares libuv's one inotify descriptor, whose events are read
 * and handed to their watchers' callbacks one after another in the order the kernel queued them, with no debounce. A
 * file created in the fence folder (watched too) after a command ended is queued after every change the command made,
 * so when its event arrives, every earlier one has been passed on. Folders that appeared meanwhile are walked (each
 * watched before it is read, so nothing made in it is missed: what is there is reported by the walk, what comes later
 * by its watch); `sync` waits for those walks too. Then everything changed before `sync` began has been reported.
 *
 * Linux only: elsewhere `fs.watch` is not one ordered queue (macOS's FSEvents, Windows' per-folder reads).
 */

/** How long a fence may take before the watch is taken to be broken (the caller then scans). */
const FENCE_TIMEOUT_MS = 5_000;

/** Whether this platform's watcher can fence (see above): Linux's inotify. */
export function treeWatchSupported(): boolean {
  return process.platform === 'linux';
}

let fences = 0;

/** Folders read one after another without giving the event loop a turn: a read is a synchronous call (cheaper than a trip through the thread pool), and a large tree does not hold the loop for long. */
const READS_PER_TURN = 64;

export async function watchTreeLocal(root: string, options: TreeWatchOptions, onChanges: (changes: TreeChanges) => void): Promise<TreeWatch> {
  await mkdir(options.fenceDir, { recursive: true, mode: 0o700 });
  const ignored = (path: string) => options.ignore.some((i) => path === i || path.startsWith(i.endsWith(sep) ? i : i + sep));
  /** The ignored paths by their folder, so that a walk looks an entry up by name (no path is built for a file). */
  const ignoredNames = new Map<string, Set<string>>();
  for (const path of options.ignore) {
    const clean = path.endsWith(sep) && path.length > 1 ? path.slice(0, -1) : path;
    const parent = dirname(clean);
    ignoredNames.set(parent, (ignoredNames.get(parent) ?? new Set()).add(basename(clean)));
  }
  const watchers = new Map<string, FSWatcher>();
  const waiting = new Map<string, () => void>();
  /** Walks of folders that appeared, still going: `sync` waits for them. */
  const walks = new Set<Promise<void>>();
  let reads = 0;
  const skip = async (path: string) => (options.skipFolder ? await options.skipFolder(path) : false);
  let failed: Error | null = null;
  let closed = false;

  const closeAll = () => {
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
  };
  const fail = (error: Error) => {
    if (failed || closed) return;
    failed = error;
    closeAll();
    onChanges({ error });
  };
  /** Stop watching a folder gone (and everything under it). */
  const forget = (dir: string) => {
    for (const [path, watcher] of watchers)
      if (path === dir || path.startsWith(dir + sep)) {
        watcher.close();
        watchers.delete(path);
      }
  };

  const onFence = (name: string | null) => {
    if (!name) return;
    const path = join(options.fenceDir, name);
    const resolve = waiting.get(path);
    if (!resolve) return;
    waiting.delete(path);
    resolve();
    void rm(path, { force: true }).catch(() => {});
  };

  const onEvent = (dir: string, event: string, name: string | null) => {
    if (closed || failed) return;
    // No name (the kernel's queue overflowed, or the folder itself went): report the root, which nothing narrower vouches for.
    if (!name) return onChanges({ paths: [root], created: [] });
    const path = join(dir, name);
    if (ignored(path)) return;
    if (event === 'change') return onChanges({ paths: [path], created: [] });
    // The watched folder itself deleted or moved away comes as its own name: report the folder (the root: the whole tree).
    if (name === basename(dir))
      void lstat(dir).catch(() => {
        forget(dir);
        onChanges({ paths: [dir], created: [] });
      });
    // Created, moved in, deleted or moved out: which one, the file system says now.
    const walk = lstat(path).then(
      async (stats) => {
        if (!stats.isDirectory() || (await skip(path))) return onChanges({ paths: [path], created: [path] });
        const found: string[] = [path];
        await watchFolder(path, found);
        onChanges({ paths: found, created: found });
      },
      () => {
        forget(path);
        onChanges({ paths: [path], created: [] });
      },
    );
    walks.add(walk);
    void walk.finally(() => walks.delete(walk));
  };

  /** Watch `dir`, then read it (so nothing made meanwhile is missed), and every folder under it; `found` gets what is in them. */
  const watchFolder = async (dir: string, found: string[] | null): Promise<void> => {
    if (closed || failed || ignored(dir)) return;
    if (!watchers.has(dir)) {
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false }, (event, name) => onEvent(dir, event, name));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // Gone before it could be watched: its deletion is reported by its parent.
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        // The system's watch limit (ENOSPC), or no permission: this watch cannot vouch for anything.
        return fail(new Error(`The file watcher could not watch ${dir}: ${(error as Error).message}`));
      }
      watcher.on('error', (error) => (dir === root ? fail(error) : forget(dir)));
      watchers.set(dir, watcher);
    }
    if (++reads % READS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Gone, or not a folder any more: its parent reports it.
    }
    // (`dir` is not ignored, so an entry is only when it is one of the ignored paths itself.)
    const here = ignoredNames.get(dir);
    for (const entry of entries) {
      if (here?.has(entry.name)) continue;
      const folder = entry.isDirectory();
      if (!folder && !found) continue;
      const path = join(dir, entry.name);
      found?.push(path);
      if (folder && !(await skip(path))) await watchFolder(path, found);
    }
  };

  const fenceWatcher = watch(options.fenceDir, { persistent: false }, (_event, name) => onFence(name));
  fenceWatcher.on('error', (error) => fail(error));
  await watchFolder(root, null);
  if (failed) {
    fenceWatcher.close();
    throw failed;
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
      // The folders that appeared before the fence are being walked: what is in them is reported when they are done.
      while (walks.size) await Promise.all([...walks]);
      if (failed) throw failed;
    },
    close: async () => {
      closed = true;
      fenceWatcher.close();
      closeAll();
    },
  };
}
