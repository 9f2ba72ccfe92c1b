import { relative, sep } from 'node:path';
import type { Environment, TreeChanges, TreeWatch } from '#contract/environment';
import { isWithin } from '#infra/policies/path-guard';
import { WatchIgnore } from './watch-ignore';

/** More paths changed than this since the last capture: git's status (one walk) is the cheaper look, and memory stays bounded. */
export const MAX_WATCHED_PATHS = 1_000;

/** What a scan began with: whether the watch was live then (only then is the capture it makes a starting point). */
export interface ScanStart {
  live: boolean;
}

/**
 * Which files may have changed since the last capture, from a file-system watch of a local workspace
 * (Environment.watchTree), so that a checkpoint after a command, a hook, an MCP tool or a sub-agent looks at those
 * files only instead of running git's status over the whole workspace.
 *
 * It holds `synced`, a tree the store recorded that equals the workspace except for the paths in `dirty` (every path
 * the watch reported since). A capture narrowed to those paths, on top of that tree, is the workspace now, once the
 * watch's fence says every change made before has been reported. Only the store's HEAD is patched (the narrowed
 * capture), so the watch is used only while HEAD is that tree; anything else — no watch yet, a watch that failed,
 * HEAD moved by another process or session, too many paths, an ignore file changed — and the caller scans (git's
 * status), and a scan begun while the watch is live becomes the new `synced`. A folder created or moved in that holds
 * folders the watch did not report (it may not be watching them) makes it start again, and the caller scans. A change
 * is never missed silently: whatever this cannot vouch for is scanned.
 */
export class ChangeWatch {
  private watch: TreeWatch | null = null;
  private starting: Promise<void> | null = null;
  /** Workspace paths reported since the last capture began. */
  private readonly dirty = new Set<string>();
  /** Of those, the ones reported as created (or moved in). */
  private readonly created = new Set<string>();
  /** More than MAX_WATCHED_PATHS, or an ignore file among them: the next capture scans. */
  private overflow = false;
  /** An ignore file changed: what the watch skips is decided again (it starts again) before the next capture scans. */
  private rulesChanged = false;
  /** The folders this watch skips (watch-ignore.ts), decided afresh each time it starts; null without `tracked`. */
  private ignore: WatchIgnore | null = null;
  private synced: string | null = null;
  /** Why the watch is not used (it could not start, or failed), for the checkpoints status; null while it is fine. */
  problem: string | null = null;

  constructor(
    private readonly environment: Environment,
    private readonly workspace: string,
    private readonly options: {
      ignore: readonly string[];
      fenceDir: string;
      /** Whether the store's HEAD holds anything at a workspace path: given, the watch skips the folders .gitignore files leave out and HEAD does not hold. */
      tracked?: (path: string) => Promise<boolean>;
    },
  ) {}

  /** Whether the workspace's machine has a watch that can fence (a local folder on Linux). */
  static available(environment: Environment): boolean {
    return environment.kind === 'local' && typeof environment.watchTree === 'function';
  }

  /** Start watching, once; resolves when the watch is in place or could not be (then `problem` says why). */
  start(): Promise<void> {
    this.starting ??= (async () => {
      try {
        const { ignore, fenceDir, tracked } = this.options;
        const skip = tracked ? new WatchIgnore(this.workspace, tracked) : null;
        this.ignore = skip;
        const options = { ignore, fenceDir, ...(skip ? { skipFolder: (path: string) => skip.skip(path) } : {}) };
        this.watch = await this.environment.watchTree!(this.workspace, options, (changes) => this.take(changes));
      } catch (error) {
        this.fail(error);
      }
    })();
    return this.starting;
  }

  get live(): boolean {
    return this.watch !== null && this.problem === null;
  }

  /**
   * Before a capture of the whole workspace, with the store's HEAD tree: the workspace paths that may have changed
   * since HEAD was captured (the capture looks at those only, on top of HEAD), or null when only a scan can tell.
   * Waits for the watch's fence first. The paths returned are no longer pending.
   */
  async changedSince(head: string | null): Promise<string[] | null> {
    // What the watch skips may have changed with the rules: it starts again (a walk), and the caller scans.
    if (this.rulesChanged && this.watch) {
      await this.restart();
      return null;
    }
    if (!this.live || !head || this.synced !== head || this.overflow) return null;
    try {
      await this.watch!.sync();
    } catch (error) {
      this.fail(error);
      return null;
    }
    if (!this.live || this.overflow) return null;
    // Taken as the fence passed, before anything is awaited: what is reported from here on (while the new folders are
    // looked into below, or while the capture runs) stays pending for the next capture. Cleared after an await, a
    // change a command made meanwhile would be in neither capture.
    const paths = [...this.dirty];
    const created = [...this.created];
    this.dirty.clear();
    this.created.clear();
    if (await this.unwatchedFolders(created, new Set(paths))) {
      // A folder the watch may not see into: watched again from scratch (a walk), and the caller scans.
      await this.restart();
      return null;
    }
    return paths;
  }

  /**
   * Whether a folder created (or moved in, or renamed) since the last capture holds a folder that was not reported:
   * one made in it before the watch reached it (mkdir -p, an unpacked archive), or brought along by a move, is not
   * watched, and its path in the watch may be the old one — changes in it would go unseen. `created` and `reported`
   * are the paths taken at the fence.
   */
  private async unwatchedFolders(created: readonly string[], reported: ReadonlySet<string>): Promise<boolean> {
    const { path } = this.environment;
    for (const rel of created) {
      const full = path.join(this.workspace, rel);
      const stats = await this.environment.lstat(full).catch(() => null);
      // A folder the watch skips (ignored, nothing tracked in it) is not looked into: what is in it is not reported.
      if (!stats?.isDirectory() || (await this.ignore?.skip(full))) continue;
      const entries = await this.environment.readdir(full).catch(() => null);
      if (!entries) return true;
      if (entries.some((e) => e.type === 'directory' && !reported.has(`${rel}/${e.name}`))) return true;
    }
    return false;
  }

  private async restart(): Promise<void> {
    const watch = this.watch;
    this.watch = null;
    this.starting = null;
    this.synced = null;
    this.rulesChanged = false;
    this.dirty.clear();
    this.created.clear();
    await watch?.close().catch(() => {});
    await this.start();
  }

  /** A scan of the whole workspace begins now: what was reported before is in it. */
  beginScan(): ScanStart {
    const live = this.live;
    if (live) {
      this.dirty.clear();
      this.created.clear();
      this.overflow = false;
    }
    return { live };
  }

  /** A scan begun at `start` made `tree`: the starting point from now on, when the watch was live as it began. */
  scanned(start: ScanStart, tree: string): void {
    this.synced = start.live && this.live ? tree : null;
  }

  /**
   * A capture narrowed to some paths (the watch's, or the files Write and Edit named) patched `head` into `tree`:
   * paths not looked at are as `head` had them unless reported since, so `tree` is a starting point when `head` was.
   */
  narrowed(head: string | null, tree: string): void {
    this.synced = head !== null && head === this.synced && this.live ? tree : null;
  }

  /** A capture failed: nothing is known until the next scan. */
  lost(): void {
    this.synced = null;
  }

  async close(): Promise<void> {
    await this.starting;
    const watch = this.watch;
    this.watch = null;
    await watch?.close().catch(() => {});
  }

  private take(changes: TreeChanges): void {
    if ('error' in changes) return this.fail(changes.error);
    const ruleFile = (path: string) => path.endsWith(`${sep}.gitignore`) && isWithin(path, this.workspace);
    // Past the limit, paths are no longer kept; a changed ignore file still decides what the watch skips.
    if (this.overflow) return void (changes.paths.some(ruleFile) && (this.rulesChanged = true));
    const rel = (path: string) => relative(this.workspace, path).split(sep).join('/');
    for (const path of changes.paths) {
      // The workspace itself (deleted, moved): nothing narrower can be trusted.
      if (path === this.workspace) this.overflow = true;
      if (path === this.workspace || !isWithin(path, this.workspace)) continue;
      const name = rel(path);
      // The rules of what is ignored may have changed: git's status reads them again.
      if (name === '.gitignore' || name.endsWith('/.gitignore')) this.overflow = this.rulesChanged = true;
      this.dirty.add(name);
    }
    for (const path of changes.created) if (path !== this.workspace && isWithin(path, this.workspace)) this.created.add(rel(path));
    if (this.dirty.size > MAX_WATCHED_PATHS) this.overflow = true;
    if (this.overflow) {
      this.dirty.clear();
      this.created.clear();
    }
  }

  private fail(error: unknown): void {
    this.problem ??= `Changes are found by scanning the workspace (git status), not by the file watcher: ${(error as Error)?.message ?? String(error)}`;
    this.synced = null;
    this.dirty.clear();
    this.created.clear();
    const watch = this.watch;
    this.watch = null;
    void watch?.close().catch(() => {});
  }
}
