import { type Stats, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { isWithin } from '#infra/policies/path-guard';

/** How many missing levels above a folder to climb for one to watch (so `.deft/agents` can appear later). */
const MAX_MISSING_LEVELS = 3;

export interface DefinitionWatcher {
  /** Resolves once changes are being reported. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Watch the sub-agent definition folders — only their own Markdown files, and the path leading to a folder
 * that does not exist yet — and call `onChange` once per burst of changes (a save writes several events).
 */
export function watchDefinitionFolders(folders: readonly string[], onChange: () => void, debounceMs = 150): DefinitionWatcher {
  const anchors = new Map<string, string>();
  for (const folder of folders) {
    let anchor = folder;
    for (let level = 0; level <= MAX_MISSING_LEVELS && !existsSync(anchor); level++) anchor = dirname(anchor);
    if (existsSync(anchor)) anchors.set(folder, anchor);
  }
  if (!anchors.size) return { ready: Promise.resolve(), close: async () => {} };
  const relevant = (path: string, stats?: Stats): boolean => {
    for (const [folder, anchor] of anchors) {
      if (!isWithin(path, anchor)) continue;
      // The folder itself or a folder on the way to it; inside it, its Markdown files only (it is not read deeper).
      if (isWithin(folder, path)) return true;
      if (dirname(path) === folder && !stats?.isDirectory() && /\.md$/i.test(path)) return true;
    }
    return false;
  };
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  // chokidar is loaded here, after the run has started: nothing waits for the watcher but `ready`.
  const started: Promise<FSWatcher | null> = import('chokidar').then(({ watch }) => {
    if (closed) return null;
    const watcher: FSWatcher = watch([...new Set(anchors.values())], {
      ignoreInitial: true,
      // Watching must never keep a process alive (CLI runs, tests); hosts stay up on their own.
      persistent: false,
      atomic: false,
      ignorePermissionErrors: true,
      ignored: (path: string, stats?: Stats) => !relevant(path, stats),
    });
    watcher.on('all', () => {
      clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
      timer.unref();
    });
    // A folder that cannot be watched (permissions, too many watchers) still gets read at each turn.
    watcher.on('error', () => {});
    return watcher;
  });
  const ready = started.then((watcher) => (watcher ? new Promise<void>((resolve) => watcher.once('ready', () => resolve())) : undefined));
  return {
    ready,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await (await started)?.close();
    },
  };
}
