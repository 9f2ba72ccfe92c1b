import type { Dirent } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSkillText } from './parser';
import { MAX_SKILL_SCAN_DEPTH, type ParsedSkill, SkillParseError, type SkillDefinition, type SkillRootSpec, type SkippedSkillInfo, normalizeSkillName } from './types';

const MAX_SKILL_FILE_BYTES = 1024 * 1024;
const MAX_DIRS_PER_ROOT = 10_000;
const IGNORED_FLAT_FILES = new Set(['readme.md', 'license.md', 'changelog.md', 'contributing.md']);

/** Parsed files by path, reused while their size and modification time stay the same (rescans after a change are cheap). */
export class ParseCache {
  private readonly entries = new Map<string, { mtimeMs: number; size: number; result: ParsedSkill | string }>();

  /** The parsed skill (or the reason it is unusable) and a stamp that changes when the file does. */
  async load(file: string, format: 'bundle' | 'flat', fallbackName: string | undefined): Promise<{ result: ParsedSkill | string; stamp: string }> {
    let info;
    try {
      info = await stat(file);
    } catch (error) {
      return { result: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`, stamp: 'missing' };
    }
    const key = `${format}:${file}`;
    const stamp = `${info.mtimeMs}:${info.size}`;
    const cached = this.entries.get(key);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return { result: cached.result, stamp };
    let result: ParsedSkill | string;
    if (info.size > MAX_SKILL_FILE_BYTES) result = `the file is larger than 1 MiB (${Math.round(info.size / 1024)} KiB); keep SKILL.md short and move material into files beside it`;
    else {
      try {
        result = parseSkillText(await readFile(file, 'utf8'), { format, ...(fallbackName ? { fallbackName } : {}) });
      } catch (error) {
        if (!(error instanceof SkillParseError)) result = `cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
        else result = error.message;
      }
    }
    this.entries.set(key, { mtimeMs: info.mtimeMs, size: info.size, result });
    return { result, stamp };
  }

  /** Forget one file (a watcher saw it change), so the next scan reads it even if its size and time look the same. */
  invalidate(file: string): void {
    this.entries.delete(`bundle:${file}`);
    this.entries.delete(`flat:${file}`);
  }

  /** Forget files under a folder that no longer exist (called after a rescan of that root). */
  retainOnly(root: string, seen: ReadonlySet<string>): void {
    for (const key of this.entries.keys()) {
      const file = key.slice(key.indexOf(':') + 1);
      if (file.startsWith(root) && !seen.has(file)) this.entries.delete(key);
    }
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

function isSkillFile(name: string): boolean {
  return name === 'SKILL.md' || name.toLowerCase() === 'skill.md';
}

function byName(a: Dirent, b: Dirent): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Find the skills under one root: folders holding a SKILL.md (searched at most 8 levels deep, skipping
 * dot-folders and node_modules, surviving symlink cycles), sub-skills below a `has-sub-skill` bundle, and
 * flat `<name>.md` files at the top level. Entries are visited in sorted order, so results are deterministic.
 */
export async function scanRoot(root: SkillRootSpec, cache: ParseCache = new ParseCache()): Promise<RootScan> {
  const result: RootScan = { root, exists: false, realPath: null, skills: [], skipped: [] };
  let rootReal: string;
  try {
    rootReal = await realpath(root.path);
    if (!(await stat(rootReal)).isDirectory()) return result;
  } catch {
    return result;
  }
  result.exists = true;
  result.realPath = rootReal;
  const byKey = new Map<string, SkillDefinition>();
  const seenFiles = new Set<string>();
  const visited = new Set<string>([rootReal]);
  let dirCount = 0;
  let capped = false;

  const skip = (file: string, reason: string) => result.skipped.push({ file, reason, source: root.source });

  const register = (parsed: ParsedSkill, stamp: string, file: string, dir: string, format: 'bundle' | 'flat', parent: string | undefined) => {
    const own = normalizeSkillName(parsed.displayName);
    const name = parent ? (own.startsWith(`${parent}.`) ? own : `${parent}.${own}`) : own;
    const existing = byKey.get(name);
    if (existing) {
      const why = existing.format === 'bundle' && format === 'flat' ? 'a skill folder of the same name wins over a flat file' : 'another skill in this folder already has this name';
      skip(file, `duplicate name "${name}": ${why} (${existing.file})`);
      return null;
    }
    const skill: SkillDefinition = {
      ...parsed,
      name,
      isSubSkill: parent !== undefined,
      ...(parent ? { parent } : {}),
      format,
      source: root.source,
      root: root.path,
      dir,
      file,
      stamp,
      overrides: [],
    };
    byKey.set(name, skill);
    result.skills.push(skill);
    return skill;
  };

  const listDir = async (dir: string): Promise<Dirent[] | null> => {
    if (++dirCount > MAX_DIRS_PER_ROOT) {
      if (!capped) skip(dir, `stopped scanning: more than ${MAX_DIRS_PER_ROOT.toLocaleString('en-US')} folders under ${root.path}`);
      capped = true;
      return null;
    }
    try {
      return (await readdir(dir, { withFileTypes: true })).sort(byName);
    } catch (error) {
      if (dir !== root.path) skip(dir, `cannot read the folder (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      return null;
    }
  };

  /** Subfolders worth visiting, with their real paths; symlinked folders are followed once. */
  const subdirs = async (dir: string, real: string, entries: Dirent[]): Promise<Array<{ path: string; real: string }>> => {
    const out: Array<{ path: string; real: string }> = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      let childReal = join(real, entry.name);
      if (entry.isSymbolicLink()) {
        try {
          childReal = await realpath(path);
          if (!(await stat(childReal)).isDirectory()) continue;
        } catch {
          continue;
        }
      } else if (!entry.isDirectory()) continue;
      if (visited.has(childReal)) continue;
      visited.add(childReal);
      out.push({ path, real: childReal });
    }
    return out;
  };

  const loadBundle = async (dir: string, real: string, entries: Dirent[], depth: number, parent: string | undefined) => {
    const skillEntry = entries.find((e) => isSkillFile(e.name))!;
    const file = join(dir, skillEntry.name);
    seenFiles.add(file);
    const { result: parsed, stamp } = await cache.load(file, 'bundle', undefined);
    if (typeof parsed === 'string') return skip(file, parsed);
    const skill = register(parsed, stamp, file, dir, 'bundle', parent);
    if (skill?.hasSubSkill) await walk(dir, real, entries, depth, skill.name);
  };

  /** Visit the subfolders of `dir` (at `depth`): a folder with SKILL.md is a skill; any other folder is searched further. */
  const walk = async (dir: string, real: string, entries: Dirent[], depth: number, parent: string | undefined): Promise<void> => {
    if (depth >= MAX_SKILL_SCAN_DEPTH) return;
    for (const child of await subdirs(dir, real, entries)) {
      const childEntries = await listDir(child.path);
      if (!childEntries) continue;
      if (childEntries.some((e) => isSkillFile(e.name) && !e.isDirectory())) await loadBundle(child.path, child.real, childEntries, depth + 1, parent);
      else await walk(child.path, child.real, childEntries, depth + 1, parent);
    }
  };

  const top = await listDir(root.path);
  if (!top) return result;
  if (top.some((e) => isSkillFile(e.name) && !e.isDirectory())) {
    // The root itself is one skill (e.g. `--skills-dir path/to/one-skill`).
    await loadBundle(root.path, rootReal, top, 0, undefined);
  } else {
    await walk(root.path, rootReal, top, 0, undefined);
    for (const entry of top) {
      if (!/\.md$/i.test(entry.name) || entry.name.startsWith('.') || IGNORED_FLAT_FILES.has(entry.name.toLowerCase())) continue;
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      const file = join(root.path, entry.name);
      seenFiles.add(file);
      const { result: parsed, stamp } = await cache.load(file, 'flat', entry.name.replace(/\.md$/i, ''));
      if (typeof parsed === 'string') skip(file, parsed);
      else register(parsed, stamp, file, root.path, 'flat', undefined);
    }
  }
  cache.retainOnly(root.path, seenFiles);
  return result;
}
