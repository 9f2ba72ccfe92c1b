import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { lstat, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

// Objects and refs written by Deft itself instead of by a git process per object: on a slow machine a
// process costs 20–40 ms, a loose object a hash and a small write. Everything here follows git's own
// formats and its way of writing (a temporary file renamed into place, a `.lock` file renamed over the
// ref), so `git fsck`, `cat-file`, `for-each-ref`, `pack-refs` and `gc` see ordinary objects and refs.

// zlib is loaded with the first object written or read: a text-only turn never touches the store (issue 36).
const zlib = () => process.getBuiltinModule('node:zlib');
let deflateAsync: ((data: Buffer, options: { level: number }) => Promise<Buffer>) | undefined;

/**
 * An object's bytes deflated at level 1 (the store's core.looseCompression), synchronously, with zlib's window and
 * memory sized to them: a source file of a few KiB gets a window as large as itself (the same bytes out — deflate never
 * looks back past the start) and a stream of about 64 KiB rather than 256 KiB, made and dropped per object (a command
 * that changed 500 files makes 500 of them). Any inflate reads it (the window size is in the stream's header).
 */
export function deflateObject(data: Buffer): Buffer {
  const windowBits = Math.max(9, Math.min(15, Math.ceil(Math.log2(data.length + 262))));
  return zlib().deflateSync(data, { level: 1, windowBits, memLevel: Math.max(1, Math.min(8, windowBits - 7)) });
}

export type ObjectType = 'blob' | 'tree' | 'commit';

/** The id of an object (sha-1 of "<type> <size>\0<body>"), as git computes it for a sha-1 store. */
export function objectId(type: ObjectType, body: Buffer): string {
  return createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
}

/**
 * Write a loose object into `gitDir/objects` unless one with its id is already there, and return its id.
 * It is deflated (level 1, the store's core.looseCompression) into a temporary file named as git names its
 * own (`tmp_obj_*`, which `git prune` removes if a crash leaves one), then renamed into place, so a reader
 * never sees half an object. Small objects (trees, commits, most source files) are written with
 * synchronous calls: a few system calls cost less than as many trips through libuv's thread pool.
 */
export async function writeObject(gitDir: string, type: ObjectType, body: Buffer): Promise<string> {
  const id = objectId(type, body);
  const dir = join(gitDir, 'objects', id.slice(0, 2));
  const path = join(dir, id.slice(2));
  const temp = join(dir, `tmp_obj_${tempPrefix}${(tempCount++).toString(36)}`);
  const header = Buffer.from(`${type} ${body.length}\0`);
  if (body.length <= SYNC_BYTES) {
    if (existsSync(path)) return id;
    const data = deflateObject(Buffer.concat([header, body]));
    try {
      writeFileSync(temp, data, { flag: 'wx', mode: 0o444 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dir, { recursive: true });
      writeFileSync(temp, data, { flag: 'wx', mode: 0o444 });
    }
    renameSync(temp, path);
    return id;
  }
  if (
    await lstat(path).then(
      () => true,
      () => false,
    )
  )
    return id;
  deflateAsync ??= promisify(zlib().deflate);
  const data = await deflateAsync(Buffer.concat([header, body]), { level: 1 });
  await mkdir(dir, { recursive: true });
  try {
    await writeFile(temp, data, { flag: 'wx', mode: 0o444 });
    // Over an object another writer put there first: it is the same bytes.
    await rename(temp, path);
  } finally {
    await rm(temp, { force: true });
  }
  return id;
}

/** Temporary names: random once per process, then counted (a random draw per object cost more than its write). */
const tempPrefix = randomBytes(6).toString('hex');
let tempCount = 0;

/** Objects up to this size are written with synchronous calls (a few milliseconds at most). */
const SYNC_BYTES = 256 * 1024;

/** One entry of a tree object. `name` is the raw bytes of the file name (git names need not be UTF-8). */
export interface TreeEntry {
  mode: string;
  name: Buffer;
  id: string;
}

export const TREE_MODE = '40000';

/** A tree object's entries, in their stored order. Each name is a view of `body` (a tree's bytes are never changed). */
export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < body.length; ) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > body.length) throw new Error('The checkpoint store holds a malformed tree.');
    entries.push({
      mode: body.toString('latin1', at, space),
      name: body.subarray(space + 1, nul),
      id: body.toString('hex', nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

/** A tree object's body: entries sorted as git sorts them (by name bytes, a folder's name as if it ended in "/"). */
export function formatTree(entries: readonly TreeEntry[]): Buffer {
  // Each entry's sort key made once, as a latin1 string (one character per byte: compared as the bytes are, and far
  // cheaper to compare than buffers), and the body written into one buffer.
  const keyed = entries.map((e) => {
    const name = e.name.toString('latin1');
    return { e, name, key: e.mode === TREE_MODE ? `${name}/` : name };
  });
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  let size = 0;
  for (const { e } of keyed) size += e.mode.length + e.name.length + 2 + e.id.length / 2;
  const body = Buffer.allocUnsafe(size);
  let at = 0;
  for (const { e, name } of keyed) {
    at += body.write(e.mode, at, 'latin1');
    body[at++] = 0x20;
    at += body.write(name, at, 'latin1');
    body[at++] = 0;
    at += body.write(e.id, at, 'hex');
  }
  return body;
}

/** A parentless commit's body, as `git commit-tree` writes it with the store's fixed identity. */
export function commitBody(tree: string, message: string, at: Date): string {
  const seconds = Math.floor(at.getTime() / 1000);
  const offset = -at.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0')}${String(Math.abs(offset) % 60).padStart(2, '0')}`;
  const who = `Deft <checkpoints@deft.invalid> ${seconds} ${zone}`;
  return `tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}`;
}

/** The commit a ref names now (a loose ref file, else packed-refs), or null. Only plain refs: no symbolic ones. */
export async function readRef(gitDir: string, ref: string): Promise<string | null> {
  const loose = await readFile(join(gitDir, ref), 'latin1').catch(() => null);
  if (loose !== null) return /^[0-9a-f]{40}\n?$/.test(loose) ? loose.trim() : null;
  const packed = await readFile(join(gitDir, 'packed-refs'), 'latin1').catch(() => '');
  for (const line of packed.split('\n')) if (line.endsWith(` ${ref}`)) return line.slice(0, line.indexOf(' '));
  return null;
}

/**
 * Point `ref` (e.g. "HEAD", "refs/deft/s/00000001") at `id` as git does: write `<ref>.lock` (created
 * exclusively, so two writers cannot both hold it) and rename it over the ref. With `create`, a ref that
 * already exists, loose or packed, is an error (`RefExistsError`) and nothing is written. The caller holds
 * the store's lock; a `.lock` a killed process left is found in the way (EEXIST) and removed by the store, which writes again.
 */
export async function writeRef(gitDir: string, ref: string, id: string, options: { create?: boolean } = {}): Promise<void> {
  // git's update-ref refused a malformed name; a path that could leave the store is refused here too.
  if (!REF_NAME.test(ref) || ref.split('/').some((part) => part.includes('..') || part.endsWith('.lock')))
    throw new Error(`Not a ref name the checkpoint store writes: ${JSON.stringify(ref)}.`);
  if (!/^[0-9a-f]{40}$/.test(id)) throw new Error(`Not an object id: ${JSON.stringify(id)}.`);
  const path = join(gitDir, ref);
  await mkdir(join(path, '..'), { recursive: true });
  const lock = `${path}.lock`;
  await writeFresh(lock, `${id}\n`, 0o644);
  try {
    if (options.create && (await readRef(gitDir, ref)) !== null) throw new RefExistsError(ref);
    await rename(lock, path);
  } catch (error) {
    await rm(lock, { force: true });
    throw error;
  }
}

/** HEAD, or refs/… made of plain name parts (no "..", no empty part, nothing git would refuse or a path could abuse). */
const REF_NAME = /^(?:HEAD|refs(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+)$/;

export class RefExistsError extends Error {
  override name = 'RefExistsError';
  constructor(readonly ref: string) {
    super(`${ref} already exists.`);
  }
}

/** Create `path` (failing if it exists) with these bytes. */
async function writeFresh(path: string, data: Buffer | string, mode: number): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

/**
 * A loose object's body read here (no git process), or null when it is not a loose object of the store (packed,
 * or absent: ask git then). The bytes must hash to the id, or it is refused as damaged.
 */
export function readLooseObject(gitDir: string, id: string, type: ObjectType): Promise<Buffer | null> {
  return readLooseObjectIn(join(gitDir, 'objects'), id, type);
}

/** readLooseObject from an objects folder (the store's, or the one its alternates name). */
export async function readLooseObjectIn(objects: string, id: string, type: ObjectType): Promise<Buffer | null> {
  if (!/^[0-9a-f]{40}$/.test(id)) return null;
  const path = join(objects, id.slice(0, 2), id.slice(2));
  // Most objects asked for after a capture of many files are in its pack: a missing file is found without a failed
  // open's error (made with its stack) and a trip through the thread pool each.
  if (!existsSync(path)) return null;
  const stored = await readFile(path).catch(() => null);
  if (!stored) return null;
  const data = zlib().inflateSync(stored);
  const nul = data.indexOf(0);
  const header = data.subarray(0, nul).toString('latin1');
  const body = data.subarray(nul + 1);
  if (header !== `${type} ${body.length}` || objectId(type, body) !== id) throw new Error(`The checkpoint store's object ${id} is damaged.`);
  return body;
}
