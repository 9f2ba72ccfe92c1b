import { existsSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import { MAX_SKILL_SCAN_DEPTH } from './types';

/** How many missing levels above a root we climb to find a folder to watch (so `.deft/skills` can appear later). */
const MAX_MISSING_LEVELS = 3;

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/**
 * Watches skill roots and reports which roots something changed under. A root that does not exist
 * yet is watched through its nearest existing parent, filtered down to the path leading to it, so
 * creating `.deft/skills/x/SKILL.md` in a workspace that had none is noticed too. Inside a root only
 * what the scanner reads is watched: no dot-folders, no node_modules, at most 8 levels deep.
 */
export class SkillWatcher {
  private readonly watcher: FSWatcher | null;
  readonly watched: ReadonlySet<string>;
  private readonly ready: Promise<void>;

  constructor(
    private readonly roots: readonly string[],
    onDirty: (roots: string[], path: string) => void,
    onError: (error: unknown) => void = () => {},
  ) {
    const anchors = new Map<string, string>();
    for (const root of roots) {
      let anchor = root;
      for (let level = 0; level <= MAX_MISSING_LEVELS && !existsSync(anchor); level++) anchor = dirname(anchor);
      if (existsSync(anchor)) anchors.set(root, anchor);
    }
    this.watched = new Set(anchors.keys());
    if (!anchors.size) {
      this.watcher = null;
      this.ready = Promise.resolve();
      return;
    }
    const relevant = (path: string): boolean => {
      for (const [root, anchor] of anchors) {
        if (!within(path, anchor)) continue;
        if (within(root, path)) return true;
        if (!within(path, root)) continue;
        const parts = relative(root, path).split(sep).filter(Boolean);
        if (parts.length > MAX_SKILL_SCAN_DEPTH + 1) continue;
        if (parts.some((p) => p.startsWith('.') || p === 'node_modules')) continue;
        return true;
      }
      return false;
    };
    this.watcher = watch([...new Set(anchors.values())], {
      ignoreInitial: true,
      // Watching must never keep a process alive (CLI runs, tests); hosts stay up on their own.
      persistent: false,
      followSymlinks: true,
      atomic: false,
      ignorePermissionErrors: true,
      ignored: (path: string) => !relevant(path),
    });
    this.ready = new Promise((resolve) => this.watcher!.once('ready', () => resolve()));
    this.watcher.on('all', (_event, path) => {
      const dirty = this.roots.filter((root) => this.watched.has(root) && (within(path, root) || within(root, path)));
      if (dirty.length) onDirty(dirty, path);
    });
    this.watcher.on('error', onError);
  }

  /** Resolves once the initial crawl is done and changes are being reported. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async close(): Promise<void> {
    await this.watcher?.close();
  }
}
