import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ObjectType, deflateObject, objectId } from './objects';

/**
 * Many objects written as one pack (version 2, with its version 2 `.idx`) instead of a loose file each: a command that
 * changed 500 files costs two files created, not 500 (creating a file, its folder and renaming it into place is what a
 * loose object costs most). git's own formats, undeltified, each blob deflated as loose ones are (`deflateObject`; trees —
 * their ids are most of their bytes, and barely shrink — are stored as zlib's uncompressed blocks, written here: a
 * deflate per object is a zlib stream made and dropped, and a command that changed 500 files in 400 folders writes 400
 * trees); the
 * pack goes into place before its index (git and PackReader find a pack by its index), each through a temporary file
 * renamed, so a reader never sees half of one. `git repack --geometric` (the store's compaction) merges such packs.
 */

const TYPE_CODE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3 };

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

function crc32(parts: readonly Buffer[]): number {
  // zlib's own (Node 20.15 and later): a JavaScript loop over every byte cost about a fifth of a 500-file pack's time.
  const native = process.getBuiltinModule('node:zlib').crc32 as ((data: Buffer, value?: number) => number) | undefined;
  if (typeof native === 'function') return parts.reduce((crc, part) => native(part, crc), 0);
  let crc = -1;
  for (const part of parts) for (let i = 0; i < part.length; i++) crc = CRC_TABLE[(crc ^ part[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/** zlib's checksum of `data` (RFC 1950). */
function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length; ) {
    // 3,800 bytes at most between reductions: b stays below 2^53.
    const end = Math.min(i + 3_800, data.length);
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65_521;
    b %= 65_521;
  }
  return ((b << 16) | a) >>> 0;
}

/** `data` as a zlib stream of uncompressed ("stored") blocks of up to 65,535 bytes each, as any inflate reads it. */
export function storedZlib(data: Buffer): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / 65_535));
  const out = Buffer.allocUnsafe(2 + blocks * 5 + data.length + 4);
  // CMF 0x78 (deflate, 32 KiB window), FLG 0x01 (fastest, no dictionary; CMF·256 + FLG a multiple of 31).
  out[0] = 0x78;
  out[1] = 0x01;
  let at = 2;
  for (let k = 0; k < blocks; k++) {
    const start = k * 65_535;
    const length = Math.min(65_535, data.length - start);
    out[at] = k === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(length ^ 0xffff, at + 3);
    at += 5;
    data.copy(out, at, start, start + length);
    at += length;
  }
  out.writeUInt32BE(adler32(data), at);
  return out;
}

function entryHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let byte = (TYPE_CODE[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** Write `objects` into `gitDir` as one pack; resolves to their ids, in order (an `id` given is trusted as the body's). */
export function writePack(gitDir: string, objects: ReadonlyArray<{ type: ObjectType; body: Buffer; id?: string }>): string[] {
  const ids = objects.map((o) => o.id ?? objectId(o.type, o.body));
  const seen = new Set<string>();
  const entries: { id: Buffer; crc: number; offset: number }[] = [];
  const parts: Buffer[] = [];
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  parts.push(head);
  let offset = 12;
  objects.forEach((object, i) => {
    const id = ids[i]!;
    if (seen.has(id)) return;
    seen.add(id);
    const header = entryHeader(object.type, object.body.length);
    const data = object.type === 'tree' ? storedZlib(object.body) : deflateObject(object.body);
    entries.push({ id: Buffer.from(id, 'hex'), crc: crc32([header, data]), offset });
    parts.push(header, data);
    offset += header.length + data.length;
  });
  head.writeUInt32BE(entries.length, 8);
  if (offset >= 2 ** 31) throw new Error('A pack of over 2 GiB is not written in one go.');
  const packHash = createHash('sha1');
  for (const part of parts) packHash.update(part);
  const packSum = packHash.digest();
  parts.push(packSum);

  entries.sort((a, b) => a.id.compare(b.id));
  const count = entries.length;
  const idx = Buffer.alloc(8 + 256 * 4 + count * 28 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  const fanout = new Uint32Array(256);
  for (const entry of entries) fanout[entry.id[0]!]!++;
  for (let i = 0, total = 0; i < 256; i++) {
    total += fanout[i]!;
    idx.writeUInt32BE(total, 8 + i * 4);
  }
  const names = 8 + 256 * 4;
  entries.forEach((entry, i) => {
    entry.id.copy(idx, names + i * 20);
    idx.writeUInt32BE(entry.crc, names + count * 20 + i * 4);
    idx.writeUInt32BE(entry.offset, names + count * 24 + i * 4);
  });
  packSum.copy(idx, names + count * 28);
  createHash('sha1')
    .update(idx.subarray(0, names + count * 28 + 20))
    .digest()
    .copy(idx, names + count * 28 + 20);

  const folder = join(gitDir, 'objects', 'pack');
  mkdirSync(folder, { recursive: true });
  const name = `pack-${packSum.toString('hex')}`;
  const temp = join(folder, `tmp_pack_${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(temp, Buffer.concat(parts), { flag: 'wx', mode: 0o444 });
    renameSync(temp, join(folder, `${name}.pack`));
    writeFileSync(`${temp}.idx`, idx, { flag: 'wx', mode: 0o444 });
    renameSync(`${temp}.idx`, join(folder, `${name}.idx`));
  } finally {
    rmSync(temp, { force: true });
    rmSync(`${temp}.idx`, { force: true });
  }
  return ids;
}
