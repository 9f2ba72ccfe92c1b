import { type Stats, existsSync } from 'node:fs';
import { basename, dirname, relative, sep } from 'node:path';
import type { FSWatcher } from 'chokidar';
import { MAX_SKILL_SCAN_DEPTH } from './types';
import { isWithin } from '#infra/policies/path-guard';

/** How many missing levels above a root we climb to find a folder to watch (so `.deft/skills` can appear later). */
const MAX_MISSING_LEVELS = 3;

/**
 * Watches skill roots and reports which roots something changed under. A root that does not exist
 * yet is watched through its nearest existing parent, filtered down to the path leading to it, so
 * creating `.deft/skills/x/SKILL.md` in a workspace that had none is noticed too. Inside a root only
 * what the scanner reads is watched: no dot-folders, no node_modules, at most 8 levels deep, only
 * Markdown files, and nothing inside a skill folder but its SKILL.md (`leafBundles`) — the scanner does
 * not look there either. When a folder stops being a skill, `reveal` starts watching its inside.
 */
export class SkillWatcher {
  private watcher: FSWatcher | null = null;
  private closed = false;
  readonly watched: ReadonlySet<string>;
  private readonly ready: Promise<void>;
  private resolveReady: () => void = () => {};
  /** Folders `reveal` named before chokidar had loaded. */
  private readonly pending: string[] = [];

  constructor(
    private readonly roots: readonly string[],
    onDirty: (roots: string[], path: string) => void,
    /** Skill folders whose inside does not matter (no sub-skills), as known now. */
    private readonly leafBundles: () => ReadonlySet<string> = () => new Set(),
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
      this.ready = Promise.resolve();
      return;
    }
    const insideLeafBundle = (path: string): boolean => {
      const leaves = this.leafBundles();
      if (!leaves.size) return false;
      const isSkillFile = basename(path).toLowerCase() === 'skill.md';
      for (let dir = dirname(path), first = true; dir !== dirname(dir); dir = dirname(dir), first = false) {
        if (leaves.has(dir)) return !(first && isSkillFile);
      }
      return false;
    };
    const relevant = (path: string, stats?: Stats): boolean => {
      for (const [root, anchor] of anchors) {
        if (!isWithin(path, anchor)) continue;
        if (isWithin(root, path)) return true;
        if (!isWithin(path, root)) continue;
        const parts = relative(root, path).split(sep).filter(Boolean);
        if (parts.length > MAX_SKILL_SCAN_DEPTH + 1) continue;
        if (parts.some((p) => p.startsWith('.') || p === 'node_modules')) continue;
        if (stats?.isFile() && !/\.md$/i.test(path)) continue;
        if (insideLeafBundle(path)) continue;
        return true;
      }
      return false;
    };
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    // chokidar is loaded only when something is watched: a one-shot run that watches nothing never evaluates it.
    void import('chokidar').then(
      ({ watch }) => {
        if (this.closed) return;
        const watcher = watch([...new Set(anchors.values())], {
          ignoreInitial: true,
          // Watching must never keep a process alive (CLI runs, tests); hosts stay up on their own.
          persistent: false,
          followSymlinks: true,
          atomic: false,
          ignorePermissionErrors: true,
          ignored: (path: string, stats?: Stats) => !relevant(path, stats),
        });
        this.watcher = watcher;
        watcher.once('ready', () => this.resolveReady());
        watcher.on('all', (_event, path) => {
          const dirty = this.roots.filter((root) => this.watched.has(root) && (isWithin(path, root) || isWithin(root, path)));
          if (dirty.length) onDirty(dirty, path);
        });
        watcher.on('error', onError);
        if (this.pending.length) watcher.add(this.pending.splice(0));
      },
      (error: unknown) => {
        onError(error);
        this.resolveReady();
      },
    );
  }

  /** Start watching folders that were left out while inside a skill folder (that folder is no longer a skill). */
  reveal(paths: readonly string[]): void {
    if (!paths.length) return;
    if (this.watcher) this.watcher.add([...paths]);
    else this.pending.push(...paths);
  }

  /** Resolves once the initial crawl is done and changes are being reported. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.resolveReady();
    await this.watcher?.close();
  }
}
