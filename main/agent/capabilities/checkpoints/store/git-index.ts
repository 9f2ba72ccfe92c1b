import { createHash } from 'node:crypto';

/** One entry of a git index, as far as seeding the store needs it. */
export interface IndexEntry {
  path: string;
  mode: number;
  /** The file's size when it was last hashed (git keeps 32 bits). */
  size: number;
}

/** Why an index cannot be taken over as it is. */
export class UnusableIndex extends Error {
  override name = 'UnusableIndex';
}

/** Extensions that make an index depend on files beside it or hide entries: a split index, a sparse one. */
const REFUSED_EXTENSIONS = new Set(['link', 'sdir']);
const GITLINK = 0o160000;

/**
 * Which entries `readIndex` returns (all of them without it): those whose path the pattern matches, is not ASCII
 * (always: the pattern is tested on the path's bytes as Latin-1, which is the path only when it is ASCII), or a
 * gitlink's, or whose size is over `size`. The others cost no string or object of their own.
 */
export interface IndexSelect {
  path: RegExp;
  size: number;
}

/** What a git index holds, as far as seeding the store needs it. */
export interface GitIndex {
  /** Every entry, or with an IndexSelect, those it selects. */
  entries: IndexEntry[];
  /** How many entries the index holds. */
  count: number;
  /**
   * The tree of every entry, from the index's cache-tree (its `TREE` extension) when git left its root valid (as a
   * commit, a checkout or a reset do): the tree an index of exactly these entries writes. Null when it is not valid.
   */
  tree: string | null;
  /**
   * The index file less its cache-tree (and the end-of-entries mark that sums the extensions' headers), checksum made
   * again: its parts in order, to be written one after another (the entries, most of the file, are not copied).
   */
  withoutCacheTree: () => Buffer[];
}

const NOT_ASCII = /[\u0080-\u{10ffff}]/u;

/**
 * A big-endian 32-bit number at `at` (inside the buffer: the caller checked). Read by hand: Buffer's readUInt32BE
 * checks its argument through a wrapper on every call, which costs more than the rest of an entry in a process
 * whose code is not yet optimised (a first turn reads 20,000 entries once).
 */
function uint32(data: Buffer, at: number): number {
  return data[at]! * 0x1000000 + ((data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!);
}

/**
 * The entries of a sha-1 git index file (versions 2, 3 and 4), read in-process: so a store can start from the
 * index of the repository the workspace is (whose stat data says which files are as committed) without
 * hashing every file again. Refused (UnusableIndex) when the checksum is wrong, or when an entry would make
 * git skip looking at a file or not stand for its bytes: a conflict, assume-unchanged, skip-worktree,
 * intent-to-add, a split or sparse index, or an extension git requires and this reader does not know.
 */
export function readGitIndex(data: Buffer): IndexEntry[] {
  return readIndex(data).entries;
}

/** readGitIndex, and the tree of all its entries where the index's cache-tree knows it (GitIndex.tree). */
export function readIndex(data: Buffer, select?: IndexSelect): GitIndex {
  if (data.length < 32 || data.toString('latin1', 0, 4) !== 'DIRC') throw new UnusableIndex('not an index file');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) throw new UnusableIndex(`index version ${version}`);
  const body = data.subarray(0, data.length - 20);
  if (
    !createHash('sha1')
      .update(body)
      .digest()
      .equals(data.subarray(data.length - 20))
  )
    throw new UnusableIndex('the checksum does not match (a sha-256 repository, or index.skipHash)');
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  // One test per path: the selection's pattern, or a character that is not ASCII.
  const wanted = select ? new RegExp(`${select.path.source}|[^\\x00-\\x7f]`, select.path.flags.replace(/[gy]/g, '')) : null;
  const limit = select?.size ?? 0;
  // The index read once as one string (a byte a character): an ASCII path is a slice of it, with no call into the
  // buffer per entry (20,000 of those cost more than the rest of the read); a path with other bytes is decoded as UTF-8.
  const text = body.toString('latin1');
  let at = 12;
  // Version 4 paths build on the previous one's bytes: the previous path, and its bytes when it is not ASCII.
  let previous = '';
  let previousBytes: Buffer | null = null;
  for (let i = 0; i < count; i++) {
    if (at + 62 > body.length) throw new UnusableIndex('truncated');
    const mode = uint32(data, at + 24);
    const size = uint32(data, at + 36);
    const flags = (data[at + 60]! << 8) | data[at + 61]!;
    if (flags & 0x8000) throw new UnusableIndex('an entry is marked assume-unchanged');
    if (flags & 0x3000) throw new UnusableIndex('a merge conflict is in progress');
    let cursor = at + 62;
    if (flags & 0x4000) {
      if (version < 3) throw new UnusableIndex('extended flags in a version 2 index');
      const extended = (data[cursor]! << 8) | data[cursor + 1]!;
      if (extended & 0x6000) throw new UnusableIndex('an entry is skip-worktree or intent-to-add');
      cursor += 2;
    }
    let path: string;
    // Where a version 2 or 3 path ends (it is read as Latin-1 first, and decoded as UTF-8 if it is kept and not ASCII).
    let pathEnd = 0;
    if (version === 4) {
      // The path is the previous one less N bytes, then this entry's NUL-terminated suffix.
      let byte = data[cursor++]!;
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = data[cursor++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = text.indexOf('\0', cursor);
      const kept = (previousBytes ? previousBytes.length : previous.length) - strip;
      if (end < 0 || kept < 0) throw new UnusableIndex('a malformed path');
      const suffix = text.slice(cursor, end);
      if (!previousBytes && !NOT_ASCII.test(suffix)) path = previous.slice(0, kept) + suffix;
      else {
        const bytes = Buffer.concat([
          previousBytes ? previousBytes.subarray(0, kept) : Buffer.from(previous.slice(0, kept), 'latin1'),
          body.subarray(cursor, end),
        ]);
        path = bytes.toString('utf8');
        previousBytes = NOT_ASCII.test(path) ? bytes : null;
      }
      previous = path;
      at = end + 1;
    } else {
      const end = text.indexOf('\0', cursor);
      if (end < 0) throw new UnusableIndex('a malformed path');
      path = text.slice(cursor, end);
      pathEnd = end;
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      at += Math.floor((end - at + 8) / 8) * 8;
    }
    if ((mode & 0o170000) === 0o040000) throw new UnusableIndex('a sparse directory entry');
    // Not selected: no entry made (`wanted` matches a path that is not ASCII, so such a Latin-1 reading is never judged).
    if (wanted && mode !== GITLINK && size <= limit && !wanted.test(path)) continue;
    if (pathEnd && NOT_ASCII.test(path)) path = data.toString('utf8', cursor, pathEnd);
    entries.push({ path, mode, size });
  }
  let tree: string | null = null;
  const kept: Buffer[] = [body.subarray(0, at)];
  while (at + 8 <= body.length) {
    const signature = data.toString('latin1', at, at + 4);
    const length = data.readUInt32BE(at + 4);
    if (REFUSED_EXTENSIONS.has(signature)) throw new UnusableIndex(`the "${signature}" extension`);
    // An extension whose signature starts with a lowercase letter is one git must understand.
    if (/^[a-z]/.test(signature) && signature !== 'link' && signature !== 'sdir') throw new UnusableIndex(`an unknown required extension "${signature}"`);
    if (signature === 'TREE' && at + 8 + length <= body.length) tree = cacheTreeRoot(body.subarray(at + 8, at + 8 + length), count);
    else if (signature !== 'EOIE') kept.push(body.subarray(at, at + 8 + length));
    at += 8 + length;
  }
  const withoutCacheTree = () => {
    const checksum = createHash('sha1');
    for (const part of kept) checksum.update(part);
    return [...kept, checksum.digest()];
  };
  return { entries, count, tree, withoutCacheTree };
}

/**
 * The root of a cache-tree extension when it is valid for all `count` entries: its first record is the root's, an
 * empty path, "<entries> <subtrees>\n", then (only where valid: entries is -1 otherwise) the tree's 20-byte id.
 */
function cacheTreeRoot(extension: Buffer, count: number): string | null {
  if (extension[0] !== 0) return null;
  const newline = extension.indexOf(10, 1);
  if (newline < 0 || extension.length < newline + 21) return null;
  const match = /^(-?\d+) \d+$/.exec(extension.toString('latin1', 1, newline));
  if (!match || Number(match[1]) !== count) return null;
  return extension.toString('hex', newline + 1, newline + 21);
}

export function isGitlink(entry: IndexEntry): boolean {
  return entry.mode === GITLINK;
}
