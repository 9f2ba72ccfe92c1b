import { type Stats, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { isWithin } from '../../../infra/policies/path-guard';

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
  const watcher: FSWatcher = watch([...new Set(anchors.values())], {
    ignoreInitial: true,
    // Watching must never keep a process alive (CLI runs, tests); hosts stay up on their own.
    persistent: false,
    atomic: false,
    ignorePermissionErrors: true,
    ignored: (path: string, stats?: Stats) => !relevant(path, stats),
  });
  let timer: NodeJS.Timeout | undefined;
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, debounceMs);
    timer.unref();
  });
  // A folder that cannot be watched (permissions, too many watchers) still gets read at each turn.
  watcher.on('error', () => {});
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return {
    ready,
    close: async () => {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
