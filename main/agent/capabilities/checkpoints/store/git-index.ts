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
 * The entries of a sha-1 git index file (versions 2, 3 and 4), read in-process: so a store can start from the
 * index of the repository the workspace is (whose stat data says which files are as committed) without
 * hashing every file again. Refused (UnusableIndex) when the checksum is wrong, or when an entry would make
 * git skip looking at a file or not stand for its bytes: a conflict, assume-unchanged, skip-worktree,
 * intent-to-add, a split or sparse index, or an extension git requires and this reader does not know.
 */
export function readGitIndex(data: Buffer): IndexEntry[] {
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
  let at = 12;
  // Version 4 paths build on the previous one's bytes: kept as bytes (re-encoding the string each entry costs more than the read).
  let previous = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + 62 > body.length) throw new UnusableIndex('truncated');
    const mode = data.readUInt32BE(at + 24);
    const size = data.readUInt32BE(at + 36);
    const flags = data.readUInt16BE(at + 60);
    if (flags & 0x8000) throw new UnusableIndex('an entry is marked assume-unchanged');
    if (flags & 0x3000) throw new UnusableIndex('a merge conflict is in progress');
    let cursor = at + 62;
    if (flags & 0x4000) {
      if (version < 3) throw new UnusableIndex('extended flags in a version 2 index');
      const extended = data.readUInt16BE(cursor);
      if (extended & 0x6000) throw new UnusableIndex('an entry is skip-worktree or intent-to-add');
      cursor += 2;
    }
    let path: string;
    if (version === 4) {
      // The path is the previous one less N bytes, then this entry's NUL-terminated suffix.
      let byte = data[cursor++]!;
      let strip = byte & 0x7f;
      while (byte & 0x80) {
        byte = data[cursor++]!;
        strip = ((strip + 1) << 7) | (byte & 0x7f);
      }
      const end = data.indexOf(0, cursor);
      if (end < 0 || strip > previous.length) throw new UnusableIndex('a malformed path');
      const bytes = Buffer.allocUnsafe(previous.length - strip + end - cursor);
      previous.copy(bytes, 0, 0, previous.length - strip);
      data.copy(bytes, previous.length - strip, cursor, end);
      path = bytes.toString('utf8');
      previous = bytes;
      at = end + 1;
    } else {
      const end = data.indexOf(0, cursor);
      if (end < 0) throw new UnusableIndex('a malformed path');
      path = data.toString('utf8', cursor, end);
      // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      at += Math.floor((end - at + 8) / 8) * 8;
    }
    if ((mode & 0o170000) === 0o040000) throw new UnusableIndex('a sparse directory entry');
    entries.push({ path, mode, size });
  }
  while (at + 8 <= body.length) {
    const signature = data.toString('latin1', at, at + 4);
    const length = data.readUInt32BE(at + 4);
    if (REFUSED_EXTENSIONS.has(signature)) throw new UnusableIndex(`the "${signature}" extension`);
    // An extension whose signature starts with a lowercase letter is one git must understand.
    if (/^[a-z]/.test(signature) && signature !== 'link' && signature !== 'sdir') throw new UnusableIndex(`an unknown required extension "${signature}"`);
    at += 8 + length;
  }
  return entries;
}

export function isGitlink(entry: IndexEntry): boolean {
  return entry.mode === GITLINK;
}
