import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { writeFileAtomic } from '#infra/platform/files';
import { isUsableSkillName } from './parser';
import type { ParsedSkill, SkillArgument, SkillType } from './types';

/**
 * What the scanner learned from one skill file, and the stat it learned it under. The file is read and parsed again
 * as soon as any of the four differs: an edit changes the modification time, the size or the change time (which no
 * program can set back), a file replaced by another changes its inode.
 */
export interface StoredFile {
  mtimeMs: number;
  size: number;
  ctimeMs: number;
  ino: number;
  /** What its frontmatter says (never its body), or why it is not a skill. */
  result: ParsedSkill | string;
}

/** `${format}:${file}` → the stored file (the scanner's own cache key). */
export type StoredFiles = ReadonlyMap<string, StoredFile>;

interface Doc {
  version: number;
  /** Per skills folder: when it was last scanned, and its files by the scanner's key. */
  roots: Record<string, { at: number; files: Record<string, StoredFile> }>;
}

const VERSION = 1;
/** Folders kept (the most recently scanned): every workspace has its own, and the file must not grow without end. */
const MAX_ROOTS = 64;
/** A larger file is not read (a damaged or hostile one must not cost a run its memory). */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
/**
 * A file changed this recently may change again within the same clock tick without its stat showing it (as git's
 * "racy" index entries): it is not stored, so the next run reads it again.
 */
const RACY_MS = 2_000;

/** The catalog file under Deft's home. */
export function storedCatalogPath(home: string): string {
  return join(home, 'cache', 'skills-catalog.json');
}

/**
 * The skills catalog kept between runs (issue 36): per skills folder and per file, what the file's frontmatter said
 * under which stat, so a run reads and parses only the skills that changed. Folders are still listed every run
 * (an added or removed skill is noticed); only the per-file read and parse is skipped. It holds no trust decision
 * and no skill's instructions; a file that cannot be read, does not parse or holds anything unexpected is ignored
 * (entry by entry, checked before use) and written anew.
 */
export class StoredSkillCatalog {
  private doc: Doc = { version: VERSION, roots: {} };

  constructor(readonly file: string) {}

  /** Read the file; the entries of the given folders, unchecked (`usableStored` checks one before it is used). */
  async load(roots: readonly string[]): Promise<StoredFiles> {
    this.doc = await readDoc(this.file);
    const files = new Map<string, StoredFile>();
    for (const root of roots) {
      const entry = Object.hasOwn(this.doc.roots, root) ? this.doc.roots[root] : undefined;
      if (!entry || typeof entry !== 'object' || !entry.files || typeof entry.files !== 'object') continue;
      const own = entry.files;
      for (const key in own) if (Object.hasOwn(own, key)) files.set(key, own[key]!);
    }
    return files;
  }

  /**
   * Replace the given folders' entries with what was just scanned (`files`: every file the cache holds) and write the
   * file atomically. Folders of other workspaces stay, the most recently scanned first. Never throws.
   */
  async save(roots: readonly string[], files: ReadonlyMap<string, StoredFile>, now = Date.now()): Promise<void> {
    const next: Doc['roots'] = {};
    for (const root of roots) {
      const own: Record<string, StoredFile> = {};
      for (const [key, value] of files) {
        const file = key.slice(key.indexOf(':') + 1);
        if (!file.startsWith(root + sep)) continue;
        if (now - Math.max(value.mtimeMs, value.ctimeMs) < RACY_MS) continue;
        own[key] = value;
      }
      if (Object.keys(own).length) next[root] = { at: now, files: own };
    }
    const others = Object.entries(this.doc.roots)
      .filter(([root, entry]) => !Object.hasOwn(next, root) && entry && typeof entry.at === 'number')
      .sort(([, a], [, b]) => b.at - a.at)
      .slice(0, Math.max(0, MAX_ROOTS - roots.length));
    this.doc = { version: VERSION, roots: { ...next, ...Object.fromEntries(others) } };
    try {
      await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.file, JSON.stringify(this.doc), 0o600);
    } catch {
      // A cache: a run that cannot write it only reads every skill again next time.
    }
  }
}

async function readDoc(file: string): Promise<Doc> {
  const empty: Doc = { version: VERSION, roots: {} };
  try {
    if ((await stat(file)).size > MAX_FILE_BYTES) return empty;
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!isRecord(value) || value.version !== VERSION || !isRecord(value.roots)) return empty;
    return value as unknown as Doc;
  } catch {
    return empty;
  }
}

/** A stored entry, checked: its stat equals `info`'s and its result has exactly the shape the parser gives (else null). */
export function usableStored(entry: unknown, info: { mtimeMs: number; size: number; ctimeMs?: number; ino?: number }): StoredFile['result'] | null {
  if (!isRecord(entry) || info.ctimeMs === undefined || info.ino === undefined || info.ino === 0) return null;
  if (entry.mtimeMs !== info.mtimeMs || entry.size !== info.size || entry.ctimeMs !== info.ctimeMs || entry.ino !== info.ino) return null;
  const result = entry.result;
  if (typeof result === 'string') return result.length <= 2_000 ? result : null;
  return isParsedSkill(result) ? result : null;
}

const TYPES: ReadonlySet<unknown> = new Set<SkillType>(['prompt', 'inline', 'flow', 'reference']);
const ARGUMENT = /^[A-Za-z_][\w-]*$/;
const OPTIONAL_TEXT = ['whenToUse', 'argumentHint', 'license', 'compatibility'] as const;
const KEYS: ReadonlySet<string> = new Set([
  'displayName',
  'description',
  'type',
  'disableModelInvocation',
  'userInvocable',
  'arguments',
  'hasSubSkill',
  'extra',
  'metadata',
  'allowedTools',
  ...OPTIONAL_TEXT,
]);

// Plain loops (no iterators, closures or key arrays): a run checks every stored skill it uses, 1,000 of them in a cold process,
// where `every`, `for…of` and `Object.keys` cost several times as much (issue 36).
function isParsedSkill(value: unknown): value is ParsedSkill {
  if (!isRecord(value)) return false;
  for (const key in value) if (!KEYS.has(key)) return false;
  if (typeof value.displayName !== 'string' || !isUsableSkillName(value.displayName)) return false;
  if (typeof value.description !== 'string' || !value.description.trim()) return false;
  if (!TYPES.has(value.type)) return false;
  if (typeof value.disableModelInvocation !== 'boolean' || typeof value.userInvocable !== 'boolean' || typeof value.hasSubSkill !== 'boolean') return false;
  const args = value.arguments;
  if (!Array.isArray(args)) return false;
  for (let i = 0; i < args.length; i++) if (!isArgument(args[i])) return false;
  if (!isRecord(value.extra)) return false;
  if (value.metadata !== undefined && !isRecord(value.metadata)) return false;
  const tools = value.allowedTools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return false;
    for (let i = 0; i < tools.length; i++) if (typeof tools[i] !== 'string') return false;
  }
  for (let i = 0; i < OPTIONAL_TEXT.length; i++) {
    const text = value[OPTIONAL_TEXT[i]!];
    if (text !== undefined && (typeof text !== 'string' || text === '')) return false;
  }
  return true;
}

function isArgument(value: unknown): value is SkillArgument {
  if (!isRecord(value) || typeof value.name !== 'string' || !ARGUMENT.test(value.name) || value.name === 'ARGUMENTS') return false;
  for (const key in value) if (key !== 'name' && key !== 'description') return false;
  return value.description === undefined || typeof value.description === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
