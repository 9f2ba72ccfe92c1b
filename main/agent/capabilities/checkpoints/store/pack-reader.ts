import { closeSync, fstatSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type ObjectType, objectId } from './objects';
import { ALTERNATES } from './seed';

/**
 * Objects read from pack files in this process (version 2 `.idx`, sha-1), so that a capture that walks a tree held
 * in a pack — a seeded store's trees are the repository's, in its pack — starts no `git cat-file`. Only the store's
 * own packs and those of the one folder the store's `objects/info/alternates` names (written by the seeding: the
 * repository's objects) are read, never an alternate of that alternate. Anything this reader does not read plainly
 * (an object not found, a damaged or unknown format, a delta too deep, an object over READ_LIMIT) answers null: the
 * caller asks git then. Every object is checked against its id before it is handed out.
 */

/** Objects larger than this are left to git (a tree or a commit is far smaller). */
const READ_LIMIT = 16 * 1024 * 1024;
const MAX_DEPTH = 64;
const TYPES: Record<number, ObjectType | undefined> = { 1: 'commit', 2: 'tree', 3: 'blob' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface Pack {
  idx: Buffer;
  count: number;
  fd: number;
  size: number;
}

class NotPlain extends Error {}

export class PackReader {
  private packs: Pack[] | null = null;
  private borrowed: string | null = null;

  constructor(private readonly gitDir: string) {}

  /** The body of `id` if it is an object of `type` in a pack this reader reads, checked against its id; else null. */
  read(id: string, type: ObjectType): Buffer | null {
    if (!/^[0-9a-f]{40}$/.test(id)) return null;
    const key = Buffer.from(id, 'hex');
    for (let attempt = 0; attempt < 2; attempt++) {
      // A pack written since the list was made (a repack): the list is made again once.
      if (attempt === 1) this.close();
      for (const pack of this.list()) {
        try {
          const at = find(pack, key);
          if (at === null) continue;
          const object = readAt(pack, at, 0);
          if (object.type !== type || objectId(type, object.body) !== id) return null;
          return object.body;
        } catch {
          // A damaged or hostile index or pack (offsets out of range, a bad stream): git is asked instead.
          return null;
        }
      }
    }
    return null;
  }

  /** The objects folder the store's alternates name (the repository's, for a seeded store), or null. */
  alternate(): string | null {
    this.list();
    return this.borrowed;
  }

  /** Forget the packs (after a repack, or when the store is closed). */
  close(): void {
    for (const pack of this.packs ?? []) closeSync(pack.fd);
    this.packs = null;
  }

  private list(): Pack[] {
    if (this.packs) return this.packs;
    const folders = [join(this.gitDir, 'objects')];
    const alternate = (readText(join(this.gitDir, ALTERNATES)) ?? '').split('\n')[0]?.trim() ?? '';
    this.borrowed = alternate && isAbsolute(alternate) ? alternate : null;
    if (this.borrowed) folders.push(this.borrowed);
    const packs: Pack[] = [];
    for (const folder of folders) {
      let names: string[];
      try {
        names = readdirSync(join(folder, 'pack')).filter((name) => name.endsWith('.idx'));
      } catch {
        continue;
      }
      for (const name of names) {
        const pack = openPack(join(folder, 'pack', name));
        if (pack) packs.push(pack);
      }
    }
    this.packs = packs;
    return packs;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function openPack(idxPath: string): Pack | null {
  let fd: number | null = null;
  try {
    const idx = readFileSync(idxPath);
    if (idx.length < 8 + 256 * 4 + 40 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return null;
    const count = idx.readUInt32BE(8 + 255 * 4);
    if (idx.length < 8 + 256 * 4 + count * 28 + 40) return null;
    fd = openSync(`${idxPath.slice(0, -4)}.pack`, 'r');
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12 || head.toString('latin1', 0, 4) !== 'PACK' || head.readUInt32BE(8) !== count) {
      closeSync(fd);
      return null;
    }
    return { idx, count, fd, size };
  } catch {
    if (fd !== null) closeSync(fd);
    return null;
  }
}

/** The offset in the pack of the object named `key` (20 bytes), or null. */
function find(pack: Pack, key: Buffer): number | null {
  const { idx, count } = pack;
  const first = key[0]!;
  let low = first === 0 ? 0 : idx.readUInt32BE(8 + (first - 1) * 4);
  let high = Math.min(idx.readUInt32BE(8 + first * 4), count);
  const names = 8 + 256 * 4;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const order = idx.compare(key, 0, 20, names + middle * 20, names + middle * 20 + 20);
    if (order === 0) {
      const offsets = names + count * 24;
      const small = idx.readUInt32BE(offsets + middle * 4);
      if (!(small & 0x80000000)) return small;
      const large = offsets + count * 4 + (small & 0x7fffffff) * 8;
      if (large + 8 > idx.length - 40) return null;
      return idx.readUInt32BE(large) * 2 ** 32 + idx.readUInt32BE(large + 4);
    }
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return null;
}

function readBytes(pack: Pack, at: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(Math.max(0, Math.min(length, pack.size - at)));
  const read = readSync(pack.fd, bytes, 0, bytes.length, at);
  return bytes.subarray(0, read);
}

/** The object at `at`: its type and body, deltas applied. Throws NotPlain where git should be asked instead. */
function readAt(pack: Pack, at: number, depth: number): { type: ObjectType; body: Buffer } {
  if (depth > MAX_DEPTH || at < 12 || at >= pack.size - 20) throw new NotPlain('depth or offset');
  // The header: type and size (at most 10 bytes), then an OFS_DELTA's offset (at most 10) or a REF_DELTA's base (20).
  const head = readBytes(pack, at, 32);
  let cursor = 0;
  let byte = head[cursor++]!;
  const kind = (byte >> 4) & 7;
  let size = byte & 15;
  let scale = 16;
  while (byte & 0x80) {
    if (cursor >= head.length || scale > 2 ** 35) throw new NotPlain('header');
    byte = head[cursor++]!;
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  if (size > READ_LIMIT) throw new NotPlain('too large');
  let base: { type: ObjectType; body: Buffer } | null = null;
  if (kind === OFS_DELTA) {
    byte = head[cursor++]!;
    let back = byte & 0x7f;
    while (byte & 0x80) {
      if (cursor >= head.length) throw new NotPlain('offset');
      byte = head[cursor++]!;
      back = (back + 1) * 128 + (byte & 0x7f);
    }
    if (back <= 0 || back > at) throw new NotPlain('offset');
    base = readAt(pack, at - back, depth + 1);
  } else if (kind === REF_DELTA) {
    const baseAt = find(pack, head.subarray(cursor, cursor + 20));
    cursor += 20;
    if (baseAt === null) throw new NotPlain('base elsewhere');
    base = readAt(pack, baseAt, depth + 1);
  } else if (!TYPES[kind]) throw new NotPlain('type');
  // Deflate never makes data more than a few bytes per 16 KiB larger: this reads the whole stream.
  const data = readBytes(pack, at + cursor, size + 64 + Math.ceil(size / 1024) * 8);
  const inflated = process.getBuiltinModule('node:zlib').inflateSync(data, { maxOutputLength: Math.max(size, 1) });
  if (inflated.length !== size) throw new NotPlain('size');
  if (!base) return { type: TYPES[kind]!, body: inflated };
  return { type: base.type, body: applyDelta(base.body, inflated) };
}

function varint(data: Buffer, start: number): [number, number] {
  let value = 0;
  let scale = 1;
  let at = start;
  for (;;) {
    if (at >= data.length || scale > 2 ** 35) throw new NotPlain('delta header');
    const byte = data[at++]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (!(byte & 0x80)) return [value, at];
  }
}

/** git's delta format: the base's size, the result's, then copies from the base and inserted bytes. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  const [baseSize, afterBase] = varint(delta, 0);
  const [size, start] = varint(delta, afterBase);
  if (baseSize !== base.length || size > READ_LIMIT) throw new NotPlain('delta sizes');
  const out = Buffer.allocUnsafe(size);
  let written = 0;
  let at = start;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += delta[at++]! * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (op & (0x10 << bit)) length += delta[at++]! * 2 ** (8 * bit);
      if (length === 0) length = 0x10000;
      if (at > delta.length || offset + length > base.length || written + length > size) throw new NotPlain('delta copy');
      base.copy(out, written, offset, offset + length);
      written += length;
    } else if (op) {
      if (at + op > delta.length || written + op > size) throw new NotPlain('delta insert');
      delta.copy(out, written, at, at + op);
      written += op;
      at += op;
    } else throw new NotPlain('delta op');
  }
  if (written !== size) throw new NotPlain('delta size');
  return out;
}
