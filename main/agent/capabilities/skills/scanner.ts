import { dirname, join, normalize, sep } from 'node:path';
import { type SkillEntry, type SkillFileInfo, type SkillFs, localSkillFs } from './skill-fs';
import { parseSkillText } from './parser';
import { type StoredFile, type StoredFiles, usableStored } from './stored-catalog';
import {
  MAX_SKILL_SCAN_DEPTH,
  type ParsedSkill,
  SkillParseError,
  type SkillDefinition,
  type SkillRootSpec,
  type SkippedSkillInfo,
  normalizeSkillName,
} from './types';

export const MAX_SKILL_FILE_BYTES = 1024 * 1024;
const MAX_DIRS_PER_ROOT = 10_000;
const SKILL_FILE = 'SKILL.md';
const IGNORED_FLAT_FILES = new Set(['readme.md', 'license.md', 'changelog.md', 'contributing.md']);

type Loaded = { result: ParsedSkill | string; stamp: string };

/** What of a stat the caches compare (the change time and inode where the machine tells them). */
function storedStat(info: SkillFileInfo): { mtimeMs: number; size: number; ctimeMs?: number; ino?: number } {
  const { ctimeMs, ino } = info;
  return ctimeMs !== undefined && ino !== undefined ? { mtimeMs: info.mtimeMs, size: info.size, ctimeMs, ino } : { mtimeMs: info.mtimeMs, size: info.size };
}

/**
 * What earlier scans read: parsed files (by path, with size and modification time) and folder
 * listings. A normal scan re-checks every file's time and size; a *trusted* scan (of a watched root)
 * reuses everything the watcher has not invalidated, so a rescan after one edit reads one file.
 */
export class ScanCache {
  private readonly files = new Map<string, { mtimeMs: number; size: number; ctimeMs?: number; ino?: number; loaded: Loaded }>();
  /** What earlier runs learned (the stored catalog): a file whose stat matches is not read again. */
  private stored: StoredFiles = new Map();
  /** Whether a file was read or forgotten since `takeChanged` was last asked (the stored catalog is then written). */
  private changed = false;
  /** How many files were read and parsed (not taken from memory or the stored catalog). */
  reads = 0;
  private readonly dirs = new Map<string, SkillEntry[]>();
  /** The skill built from each file last time, reused while nothing about it changed (rescans allocate little). */
  readonly skills = new Map<string, SkillDefinition>();

  /** `fs`: the machine the scanned roots are on (this one by default; a remote workspace's through its Environment). */
  constructor(readonly fs: SkillFs = localSkillFs) {}

  /**
   * What the file said, without waiting, when its stat (`info`, just taken) matches what this cache or the stored
   * catalog holds; null when it must be read. A scan of unchanged skills does nothing asynchronous per skill.
   */
  known(file: string, format: 'bundle' | 'flat', info: SkillFileInfo): Loaded | null {
    const key = `${format}:${file}`;
    const cached = this.files.get(key);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size && cached.ctimeMs === info.ctimeMs && cached.ino === info.ino)
      return cached.loaded;
    const stat = storedStat(info);
    const stored = usableStored(this.stored.get(key), stat);
    if (stored === null) return null;
    const loaded = { result: stored, stamp: `${info.mtimeMs}:${info.size}` };
    this.files.set(key, { ...stat, loaded });
    return loaded;
  }

  /** `known`: the file's stat, when the caller has just taken it. */
  async load(file: string, format: 'bundle' | 'flat', fallbackName: string | undefined, trusted: boolean, known?: SkillFileInfo): Promise<Loaded> {
    const key = `${format}:${file}`;
    const cached = this.files.get(key);
    if (trusted && cached) return cached.loaded;
    let info = known;
    try {
      info ??= await this.fs.stat(file);
    } catch (error) {
      return { result: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, stamp: 'missing' };
    }
    const hit = this.known(file, format, info);
    if (hit) return hit;
    const stamp = `${info.mtimeMs}:${info.size}`;
    const stat = storedStat(info);
    this.changed = true;
    this.reads++;
    let result: ParsedSkill | string;
    // A FIFO would block the read forever and /dev/zero fill memory: a cloned repo can ship either as SKILL.md.
    if (!info.isFile()) result = 'not a regular file (a device, pipe or socket); a skill must be a plain file';
    else if (info.size > MAX_SKILL_FILE_BYTES)
      result = `the file is larger than 1 MiB (${Math.round(info.size / 1024)} KiB); keep SKILL.md short and move material into files beside it`;
    else {
      try {
        // The body is not kept: it is read again when the skill is loaded (body.ts), so a catalog of many skills stays small.
        const { body: _body, ...parsed } = parseSkillText(await this.fs.readText(file), { format, ...(fallbackName ? { fallbackName } : {}) });
        result = parsed;
      } catch (error) {
        result =
          error instanceof SkillParseError ? error.message : `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
      }
    }
    const loaded = { result, stamp };
    this.files.set(key, { ...stat, loaded });
    return loaded;
  }

  /** Use what earlier runs learned (before the first scan). */
  useStored(files: StoredFiles): void {
    this.stored = files;
  }

  /** Whether a file was read or forgotten since the last call. */
  takeChanged(): boolean {
    const changed = this.changed;
    this.changed = false;
    return changed;
  }

  /** The files this cache knows with their full stat (what the stored catalog keeps). */
  storable(): Map<string, StoredFile> {
    const out = new Map<string, StoredFile>();
    for (const [key, { mtimeMs, size, ctimeMs, ino, loaded }] of this.files)
      if (ctimeMs !== undefined && ino !== undefined) out.set(key, { mtimeMs, size, ctimeMs, ino, result: loaded.result });
    return out;
  }

  /** How many files `storable` would give. */
  storableCount(): number {
    let count = 0;
    for (const { ctimeMs, ino } of this.files.values()) if (ctimeMs !== undefined && ino !== undefined) count++;
    return count;
  }

  /** A folder's entries, sorted by name (from the cache when trusted). */
  async list(dir: string, trusted: boolean): Promise<SkillEntry[]> {
    const cached = this.dirs.get(dir);
    if (trusted && cached) return cached;
    const entries = (await this.fs.readdir(dir)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.dirs.set(dir, entries);
    return entries;
  }

  /** Something changed at `path` (a watcher event): forget it, what is below it, and its parent's listing. */
  invalidate(path: string): void {
    this.files.delete(`bundle:${path}`);
    this.files.delete(`flat:${path}`);
    this.skills.delete(path);
    this.dirs.delete(path);
    this.dirs.delete(dirname(path));
    const below = path + sep;
    for (const key of this.dirs.keys()) if (key.startsWith(below)) this.dirs.delete(key);
    for (const key of this.files.keys()) if (key.slice(key.indexOf(':') + 1).startsWith(below)) this.files.delete(key);
  }

  /** Drop what a scan of `root` no longer reached. */
  retainOnly(root: string, files: ReadonlySet<string>, dirs: ReadonlySet<string>): void {
    const inRoot = (p: string) => p === root || p.startsWith(root + sep);
    for (const key of this.files.keys()) {
      const file = key.slice(key.indexOf(':') + 1);
      if (inRoot(file) && !files.has(file)) {
        this.files.delete(key);
        this.changed = true;
      }
    }
    for (const dir of this.dirs.keys()) if (inRoot(dir) && !dirs.has(dir)) this.dirs.delete(dir);
    for (const file of this.skills.keys()) if (inRoot(file) && !files.has(file)) this.skills.delete(file);
  }
}

export interface RootScan {
  root: SkillRootSpec;
  exists: boolean;
  /** The root with symlinks resolved (for the path guard). */
  realPath: string | null;
  skills: SkillDefinition[];
  skipped: SkippedSkillInfo[];
}

export interface ScanOptions {
  /** Reuse cached listings and files without checking the disk (only for roots a watcher keeps the cache honest for). */
  trusted?: boolean;
}

/** What the walk found, in traversal order; names are assigned afterwards so the result does not depend on I/O timing. */
type Found =
  | {
      kind: 'skill';
      format: 'bundle' | 'flat';
      file: string;
      dir: string;
      real: string;
      parsed: ParsedSkill;
      stamp: string;
      children: Found[];
      command?: boolean;
    }
  | { kind: 'skip'; file: string; reason: string };

function isSkillFile(entry: SkillEntry): boolean {
  return !entry.isDirectory() && entry.name.toLowerCase() === 'skill.md';
}

/**
 * `join(dir, name)` for a name read from a listing (one path component) under a folder already normal (`clean`): the
 * same path without join's normalizing pass, which costs about 8 µs a call in a cold process, a tenth of the budget of
 * a run with 1,000 skills (issue 36).
 */
function childOf(dir: string, name: string, clean: boolean): string {
  if (!clean) return join(dir, name);
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

/**
 * Find the skills under one root: folders holding a SKILL.md (searched at most 8 levels deep, skipping
 * dot-folders and node_modules, surviving symlink cycles), sub-skills below a `has-sub-skill` bundle, and
 * flat `<name>.md` files at the top level. Folders are read in parallel, but results follow the sorted
 * order of entries, so they are deterministic.
 */
export async function scanRoot(root: SkillRootSpec, cache: ScanCache = new ScanCache(), options: ScanOptions = {}): Promise<RootScan> {
  const result: RootScan = { root, exists: false, realPath: null, skills: [], skipped: [] };
  const trusted = options.trusted === true;
  const { realpath, stat } = cache.fs;
  let rootReal: string;
  try {
    rootReal = await realpath(root.path);
    if (!(await stat(rootReal)).isDirectory()) return result;
  } catch {
    return result;
  }
  result.exists = true;
  result.realPath = rootReal;
  // Every folder below is reached by appending names read from listings: normal when the root's path is.
  const clean = normalize(root.path) === root.path;
  const under = (dir: string, name: string) => childOf(dir, name, clean);
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();
  let dirCount = 0;
  let capped = false;

  /** Count a folder reached; past the cap, the skip to report (once) or an empty listing. */
  const countDir = (dir: string): Found | [] | null => {
    if (++dirCount <= MAX_DIRS_PER_ROOT) return null;
    const first = !capped;
    capped = true;
    return first
      ? { kind: 'skip', file: dir, reason: `stopped scanning: more than ${MAX_DIRS_PER_ROOT.toLocaleString('en-US')} folders under ${root.path}` }
      : [];
  };

  const listDir = async (dir: string): Promise<SkillEntry[] | Found> => {
    const over = countDir(dir);
    if (over) return over;
    seenDirs.add(dir);
    try {
      return await cache.list(dir, trusted);
    } catch (error) {
      return { kind: 'skip', file: dir, reason: `cannot read the folder (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
    }
  };

  /** A skill folder; `entries`: its listing, or null when its SKILL.md was found by name (`info`: that file's stat). */
  const bundle = async (dir: string, real: string, entries: SkillEntry[] | null, chain: readonly string[], info?: SkillFileInfo): Promise<Found[]> => {
    const file = under(dir, entries ? entries.find(isSkillFile)!.name : SKILL_FILE);
    seenFiles.add(file);
    const { result: parsed, stamp } = await cache.load(file, 'bundle', undefined, trusted, info);
    if (typeof parsed === 'string') return [{ kind: 'skip', file, reason: parsed }];
    let children: Found[] = [];
    if (parsed.hasSubSkill) {
      const listed = entries ?? (await cache.list(dir, trusted).catch(() => []));
      children = await walk(dir, real, listed, chain);
    }
    return [{ kind: 'skill', format: 'bundle', file, dir, real, parsed, stamp, children }];
  };

  /**
   * For each folder, the stat of its `SKILL.md` when that is a file: most subfolders of a root are skills, and one stat
   * tells that and keys the file's cache entry, where listing the folder first costs a readdir more (issue 36: 1,000
   * skills). Taken for a whole listing at once (cheaper than one by one). Not in a trusted scan, which reads nothing
   * from the disk that the cache holds.
   */
  const skillFilesIn = async (dirs: readonly string[]): Promise<Array<SkillFileInfo | null>> => {
    if (trusted || !dirs.length) return dirs.map(() => null);
    // No such file (or spelt `skill.md`): the folder is listed as before.
    return (await cache.fs.statMany(dirs.map((dir) => under(dir, SKILL_FILE)))).map((info) => (info?.isFile() ? info : null));
  };

  /** The subfolders of `dir`, in order: a folder with SKILL.md is a skill; any other folder is searched further. */
  const walk = async (dir: string, real: string, entries: SkillEntry[], chain: readonly string[]): Promise<Found[]> => {
    if (chain.length > MAX_SKILL_SCAN_DEPTH) return [];
    const folders = entries.filter((e) => !e.name.startsWith('.') && e.name !== 'node_modules' && (e.isDirectory() || e.isSymbolicLink()));
    const paths = folders.map((entry) => under(dir, entry.name));
    const skillFiles = await skillFilesIn(paths);
    const visit = async (entry: SkillEntry, i: number): Promise<Found[]> => {
      const path = paths[i]!;
      let childReal = under(real, entry.name);
      if (entry.isSymbolicLink()) {
        try {
          childReal = await realpath(path);
          if (!(await stat(childReal)).isDirectory()) return [];
        } catch {
          return [];
        }
      }
      if (chain.includes(childReal)) return []; // a symlink back to an ancestor: a cycle
      const childChain = [...chain, childReal];
      const direct = skillFiles[i];
      if (direct) {
        const over = countDir(path);
        if (over) return Array.isArray(over) ? over : [over];
        return bundle(path, childReal, null, childChain, direct);
      }
      const listed = await listDir(path);
      if (!Array.isArray(listed)) return [listed];
      return listed.some(isSkillFile) ? bundle(path, childReal, listed, childChain) : walk(path, childReal, listed, childChain);
    };
    const found: Found[][] = new Array<Found[]>(folders.length);
    const visits: Promise<void>[] = [];
    for (let i = 0; i < folders.length; i++) {
      const entry = folders[i]!;
      const direct = skillFiles[i];
      // A plain folder whose SKILL.md the stored catalog (or memory) knows unchanged, without sub-skills: settled here,
      // with no promise or closure per skill (most of a 1,000-skill run).
      const loaded = direct && !entry.isSymbolicLink() ? cache.known(under(paths[i]!, SKILL_FILE), 'bundle', direct) : null;
      if (!loaded || (typeof loaded.result !== 'string' && loaded.result.hasSubSkill)) {
        visits.push(visit(entry, i).then((items) => void (found[i] = items)));
        continue;
      }
      const path = paths[i]!;
      const over = countDir(path);
      if (over) {
        found[i] = Array.isArray(over) ? over : [over];
        continue;
      }
      const file = under(path, SKILL_FILE);
      seenFiles.add(file);
      found[i] =
        typeof loaded.result === 'string'
          ? [{ kind: 'skip', file, reason: loaded.result }]
          : [{ kind: 'skill', format: 'bundle', file, dir: path, real: under(real, entry.name), parsed: loaded.result, stamp: loaded.stamp, children: [] }];
    }
    await Promise.all(visits);
    return found.flat();
  };

  /** A commands folder: every `.md` at any depth (dot-folders and node_modules skipped), `a/b.md` named `a:b`. */
  const commandFiles = async (dir: string, real: string, entries: SkillEntry[], prefix: string, chain: readonly string[]): Promise<Found[]> => {
    if (chain.length > MAX_SKILL_SCAN_DEPTH) return [];
    const visits = entries.map(async (entry): Promise<Found[]> => {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') return [];
      const path = under(dir, entry.name);
      let childReal = under(real, entry.name);
      let isDir = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          childReal = await realpath(path);
          isDir = (await stat(childReal)).isDirectory();
        } catch {
          return [];
        }
      }
      if (isDir) {
        if (chain.includes(childReal)) return [];
        const listed = await listDir(path);
        return Array.isArray(listed) ? commandFiles(path, childReal, listed, `${prefix}${entry.name}:`, [...chain, childReal]) : [listed];
      }
      if (!/\.md$/i.test(entry.name)) return [];
      seenFiles.add(path);
      if (prefix && !/^([A-Za-z0-9][\w.-]*:)+$/.test(prefix))
        return [{ kind: 'skip', file: path, reason: 'a command folder name must be letters, digits, "-", "_" or "." (no spaces)' }];
      const { result: parsed, stamp } = await cache.load(path, 'flat', entry.name.replace(/\.md$/i, ''), trusted);
      if (typeof parsed === 'string') return [{ kind: 'skip', file: path, reason: parsed }];
      // A command is named by its path (`frontend/component.md` is `frontend:component`), as Claude Code names it.
      return [
        {
          kind: 'skill',
          format: 'flat',
          file: path,
          dir,
          real,
          parsed: { ...parsed, displayName: `${prefix}${parsed.displayName}` },
          stamp,
          children: [],
          command: true,
        },
      ];
    });
    return (await Promise.all(visits)).flat();
  };

  const top = await listDir(root.path);
  if (!Array.isArray(top)) return result;
  let found: Found[];
  if (root.commands) {
    found = await commandFiles(root.path, rootReal, top, '', [rootReal]);
  } else if (top.some(isSkillFile)) {
    // The root itself is one skill (e.g. `--skills-dir path/to/one-skill`).
    found = await bundle(root.path, rootReal, top, [rootReal]);
  } else {
    const flat = top
      .filter((e) => /\.md$/i.test(e.name) && !e.name.startsWith('.') && !IGNORED_FLAT_FILES.has(e.name.toLowerCase()) && (e.isFile() || e.isSymbolicLink()))
      .map(async (entry): Promise<Found> => {
        const file = under(root.path, entry.name);
        seenFiles.add(file);
        const { result: parsed, stamp } = await cache.load(file, 'flat', entry.name.replace(/\.md$/i, ''), trusted);
        return typeof parsed === 'string'
          ? { kind: 'skip', file, reason: parsed }
          : { kind: 'skill', format: 'flat', file, dir: root.path, real: rootReal, parsed, stamp, children: [] };
      });
    // Folders first: a skill folder wins over a flat file of the same name.
    const [folders, files] = await Promise.all([walk(root.path, rootReal, top, [rootReal]), Promise.all(flat)]);
    found = [...folders, ...files];
  }
  assignNames(found, root, result, cache);
  cache.retainOnly(root.path, seenFiles, seenDirs);
  return result;
}

/** Register what was found, in order: names (with `parent.` for sub-skills), clashes inside the root, folders reached twice through symlinks. */
function assignNames(found: readonly Found[], root: SkillRootSpec, result: RootScan, cache: ScanCache): void {
  const byName = new Map<string, SkillDefinition>();
  const realDirs = new Set<string>();
  const visit = (items: readonly Found[], parent: string | undefined) => {
    for (const item of items) {
      if (item.kind === 'skip') {
        result.skipped.push({ file: item.file, reason: item.reason, source: root.source });
        continue;
      }
      if (item.format === 'bundle') {
        if (realDirs.has(item.real)) continue; // the same folder through another symlink
        realDirs.add(item.real);
      }
      const own = normalizeSkillName(item.parsed.displayName);
      const name = parent ? (own.startsWith(`${parent}.`) ? own : `${parent}.${own}`) : own;
      const existing = byName.get(name);
      if (existing) {
        const why =
          existing.format === 'bundle' && item.format === 'flat'
            ? 'a skill folder of the same name wins over a flat file'
            : 'another skill in this folder already has this name';
        result.skipped.push({ file: item.file, reason: `duplicate name "${name}": ${why} (${existing.file})`, source: root.source });
        continue;
      }
      const previous = cache.skills.get(item.file);
      const same =
        previous &&
        previous.stamp === item.stamp &&
        previous.name === name &&
        previous.parent === parent &&
        previous.source === root.source &&
        previous.root === root.path &&
        previous.dir === item.dir &&
        previous.format === item.format &&
        previous.fromCommands === item.command;
      // Object.assign, not a spread followed by more fields: V8 builds such a literal through its slow path, about 25 µs a
      // skill, a tenth of a 1,000-skill run's budget (issue 36).
      const skill: SkillDefinition = same
        ? previous
        : Object.assign(
            {},
            item.parsed,
            { name, isSubSkill: parent !== undefined },
            parent ? { parent } : null,
            { format: item.format, source: root.source, root: root.path, dir: item.dir, file: item.file, stamp: item.stamp },
            item.command ? { fromCommands: true } : null,
            root.remote ? { remote: true as const } : null,
          );
      cache.skills.set(item.file, skill);
      byName.set(name, skill);
      result.skills.push(skill);
      if (item.children.length) visit(item.children, name);
    }
  };
  visit(found, undefined);
}
