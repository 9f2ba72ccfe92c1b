import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SkillCatalog as CatalogPayload, SkillRoot } from '#protocol';
import type { Environment } from '#contract/environment';
import { enabledPluginParts } from '#infra/plugins/enabled';
import { SettingsStore } from '#infra/settings/settings-store';
import { SkillCatalog } from './catalog';
import { renderSkillListing } from './listing';
import { type RootOptions, type SkillSettings, resolveSkillRoots, skillSettingsSchema } from './roots';
import { type RootScan, ScanCache, scanRoot } from './scanner';
import { environmentSkillFs } from './skill-fs';
import { StoredSkillCatalog, storedCatalogPath } from './stored-catalog';
import { type SkillRootSpec, type SkippedSkillInfo, rootKey } from './types';
import { SkillWatcher } from './watcher';

export interface SkillServiceOptions extends Omit<RootOptions, 'settings' | 'remoteWorkspace'> {
  /** The workspace's machine: when it is not this one, its roots are read there (and read again by `refreshRemote`). */
  environment?: Environment;
  /** Watch workspace, user and explicit roots for changes (default true). */
  watch?: boolean;
  /** Quiet time after the last change before rescanning. */
  debounceMs?: number;
  /** Longest a steady stream of changes may delay a rescan. */
  maxWaitMs?: number;
  /** Keep what the skill files said between runs in this file (default: `cache/skills-catalog.json` under Deft's home; false: not kept). */
  storedCatalog?: string | false;
}

/**
 * The skills of one workspace, kept current: scans the roots, merges them by priority, watches the
 * roots that can change and rescans only the roots a change touched (unchanged files come from a
 * cache). Listeners hear about every change of the catalog.
 */
export class SkillService {
  private roots: SkillRootSpec[] = [];
  private scans = new Map<string, RootScan>();
  private current = new SkillCatalog([], 0);
  private settingsProblem: SkippedSkillInfo | null = null;
  private listingCache: { version: number; text: string } | null = null;
  private signature = '';
  private readonly cache = new ScanCache();
  /** The remote workspace's roots' cache (its files, read through the Environment); null for a local workspace. */
  private readonly remoteCache: ScanCache | null;
  /** Roots whose cache a running watcher keeps honest (rescans after an event trust it). */
  private trusted = new Set<string>();
  private watching: Promise<void> = Promise.resolve();
  /** Folders of skills without sub-skills: the watcher ignores what is inside them. */
  private leafBundles: ReadonlySet<string> = new Set();
  private watcher: SkillWatcher | null = null;
  private readonly listeners = new Set<(catalog: SkillCatalog) => void>();
  private queue: Promise<void> = Promise.resolve();
  private dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private firstDirtyAt = 0;
  private closed = false;
  private readonly initial: Promise<void>;
  /** The catalog kept between runs (this machine's folders only), read before the first scan. */
  private readonly store: StoredSkillCatalog | null;
  private storeRead = false;
  /** How many files the stored catalog held for the folders read (a folder that lost files is written anew). */
  private storedCount = 0;

  constructor(private readonly options: SkillServiceOptions) {
    const environment = options.environment;
    const stored = options.storedCatalog ?? storedCatalogPath(options.home);
    this.store = stored === false ? null : new StoredSkillCatalog(stored);
    this.remoteCache = environment && environment.kind !== 'local' ? new ScanCache(environmentSkillFs(environment)) : null;
    this.initial = this.enqueue(() => this.fullScan());
  }

  /** Resolves when the first scan is done. */
  ready(): Promise<void> {
    return this.initial;
  }

  /** Resolves when the watcher has crawled the roots and reports changes (after `ready`). */
  async watchReady(): Promise<void> {
    await this.initial;
    await this.watching;
  }

  /** How many skill files were read and parsed so far (a file unchanged since the stored catalog was written is not). */
  get filesRead(): number {
    return this.cache.reads;
  }

  get catalog(): SkillCatalog {
    return this.current;
  }

  onChange(listener: (catalog: SkillCatalog) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Re-read settings and every root (the gallery's Rescan, or a settings change). */
  rescan(): Promise<void> {
    return this.enqueue(() => this.fullScan());
  }

  /**
   * Read the remote workspace's roots again (nothing watches them there): at each turn's start. Unchanged files cost
   * a stat each; nothing happens for a local workspace.
   */
  refreshRemote(): Promise<void> {
    if (!this.remoteCache) return Promise.resolve();
    return this.enqueue(async () => {
      if (this.closed) return;
      const targets = this.roots.filter((r) => r.remote);
      const scans = await Promise.all(targets.map((root) => scanRoot(root, this.cacheFor(root))));
      for (const scan of scans) this.scans.set(rootKey(scan.root), scan);
      this.publish();
    });
  }

  private cacheFor(root: SkillRootSpec): ScanCache {
    return root.remote && this.remoteCache ? this.remoteCache : this.cache;
  }

  /** The model's listing, rebuilt only when the catalog changes. */
  listing(): string {
    if (this.listingCache?.version !== this.current.version)
      this.listingCache = { version: this.current.version, text: renderSkillListing(this.current.skills, (name) => this.current.overridesOf(name)) };
    return this.listingCache.text;
  }

  payload(): CatalogPayload {
    const roots: SkillRoot[] = this.roots.map((r) => ({
      path: r.path,
      source: r.source,
      exists: this.scans.get(rootKey(r))?.exists ?? false,
      watched: !r.remote && (this.watcher?.watched.has(r.path) ?? false),
    }));
    const payload = this.current.payload(roots);
    if (this.settingsProblem) payload.skipped.unshift(this.settingsProblem);
    return payload;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.queue.catch(() => {});
    const watcher = this.watcher;
    this.watcher = null;
    await watcher?.close();
    await this.watching.catch(() => {});
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  private async readSettings(): Promise<SkillSettings | undefined> {
    const store = new SettingsStore(this.options.home);
    const raw = (await store.readRaw()).skills;
    this.settingsProblem = null;
    if (raw === undefined) return undefined;
    const parsed = skillSettingsSchema().safeParse(raw);
    if (parsed.success) return parsed.data;
    const detail = parsed.error.issues.map((i) => `${i.path.join('.') || 'skills'}: ${i.message}`).join('; ');
    this.settingsProblem = {
      file: join(this.options.home, 'settings.json'),
      reason: `the "skills" setting was ignored (${detail}); expected {"extraDirs": ["path", …], "dirs": ["path", …]}`,
      source: 'extra',
    };
    return undefined;
  }

  private async fullScan(): Promise<void> {
    if (this.closed) return;
    const settings = await this.readSettings();
    const { plugins } = await enabledPluginParts(this.options.home);
    const roots = resolveSkillRoots({ ...this.options, remoteWorkspace: this.remoteCache !== null, ...(settings ? { settings } : {}), plugins });
    const rootsChanged = roots.map((r) => `${r.source}:${rootKey(r)}`).join('\n') !== this.roots.map((r) => `${r.source}:${rootKey(r)}`).join('\n');
    this.roots = roots;
    if (this.store && !this.storeRead) {
      this.storeRead = true;
      const stored = await this.store.load(this.localRoots());
      this.storedCount = stored.size;
      this.cache.useStored(stored);
    }
    const scans = await Promise.all(roots.map((root) => scanRoot(root, this.cacheFor(root))));
    this.scans = new Map(scans.map((s) => [rootKey(s.root), s]));
    this.publish();
    this.saveStore();
    // Only this machine's folders are watched: a remote workspace's are read again at each turn's start.
    if (rootsChanged && this.options.watch !== false && !this.closed) this.startWatcher(roots.filter((r) => r.watch && !r.remote).map((r) => r.path));
  }

  /**
   * Watch in the background: the first catalog does not wait for the crawl. Once the watcher is
   * ready, the watched roots are read once more (catching changes made during the crawl) and from
   * then on rescans after an event trust the cache the watcher invalidates.
   */
  private startWatcher(paths: string[]): void {
    this.trusted.clear();
    const previous = this.watcher;
    const watcher = new SkillWatcher(
      paths,
      (dirty, path) => this.markDirty(dirty, path),
      () => this.leafBundles,
    );
    this.watcher = watcher;
    this.watching = (async () => {
      await previous?.close();
      await Promise.race([watcher.whenReady(), new Promise((r) => setTimeout(r, 10_000).unref())]);
      if (this.closed || this.watcher !== watcher) return;
      await this.enqueue(async () => {
        await this.rescanRoots(paths);
        for (const path of watcher.watched) this.trusted.add(path);
      });
    })();
  }

  private markDirty(roots: readonly string[], path: string): void {
    if (this.closed) return;
    this.cache.invalidate(path);
    for (const root of roots) this.dirty.add(root);
    const now = Date.now();
    if (!this.timer) this.firstDirtyAt = now;
    else clearTimeout(this.timer);
    const debounce = this.options.debounceMs ?? 60;
    const wait = Math.min(debounce, Math.max(0, this.firstDirtyAt + (this.options.maxWaitMs ?? 200) - now));
    this.timer = setTimeout(() => {
      this.timer = null;
      const dirty = [...this.dirty];
      this.dirty.clear();
      void this.enqueue(() => this.rescanRoots(dirty));
    }, wait);
    this.timer.unref();
  }

  private async rescanRoots(paths: readonly string[]): Promise<void> {
    if (this.closed) return;
    const targets = this.roots.filter((r) => !r.remote && paths.includes(r.path));
    const scans = await Promise.all(targets.map((root) => scanRoot(root, this.cache, { trusted: this.trusted.has(root.path) })));
    for (const scan of scans) this.scans.set(rootKey(scan.root), scan);
    this.publish();
    this.saveStore();
  }

  private localRoots(): string[] {
    return [...new Set(this.roots.filter((r) => !r.remote).map((r) => r.path))];
  }

  /** Write the stored catalog when a file was read or forgotten (queued after the scan: the catalog never waits for it). */
  private saveStore(): void {
    const store = this.store;
    if (!store || this.closed) return;
    const changed = this.cache.takeChanged();
    // Counted before anything is copied: a run that changed nothing builds no map of every file.
    if (!changed && this.cache.storableCount() === this.storedCount) return;
    const files = this.cache.storable();
    this.storedCount = files.size;
    void this.enqueue(() => store.save(this.localRoots(), files));
  }

  private updateLeafBundles(scans: readonly RootScan[]): void {
    const leaves = new Set<string>();
    for (const scan of scans)
      if (!scan.root.remote)
        for (const skill of scan.skills) if (skill.format === 'bundle' && !skill.hasSubSkill && skill.dir !== scan.root.path) leaves.add(skill.dir);
    const opened = [...this.leafBundles].filter((dir) => !leaves.has(dir) && existsSync(dir));
    this.leafBundles = leaves;
    if (opened.length) this.watcher?.reveal(opened.flatMap((dir) => subfolders(dir)));
  }

  /** Build the merged catalog; bump the version and tell listeners only when something a user or the model sees changed. */
  private publish(): void {
    const scans = this.roots.map((r) => this.scans.get(rootKey(r))).filter((s): s is RootScan => Boolean(s));
    const next = new SkillCatalog(scans, this.current.version + 1);
    const signature = [
      ...next.skills.map((s) => `${s.name}\u0000${s.source}\u0000${s.file}\u0000${s.stamp}\u0000${next.overridesOf(s.name).length}`),
      ...next.skipped.map((s) => `!${s.file}\u0000${s.reason}`),
      `settings:${this.settingsProblem?.reason ?? ''}`,
      ...this.roots.map((r) => `root:${r.path}:${this.scans.get(r.path)?.exists ?? false}`),
    ].join('\n');
    if (signature === this.signature) return;
    this.signature = signature;
    this.current = next;
    this.updateLeafBundles(scans);
    for (const listener of this.listeners) {
      try {
        listener(this.current);
      } catch {
        // A listener's failure must not stop the others.
      }
    }
  }
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}
