import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '#test-support/harness';
import { runGit } from './git';
import { type ObjectType, type TreeEntry, formatTree, objectId } from './objects';
import { PackReader } from './pack-reader';
import { writePack } from './pack-writer';
import { ALTERNATES } from './seed';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const env = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t.invalid' };

/** A repository with many versions of its files and folders, packed with deltas (trees and blobs delta each other). */
async function packedRepository(): Promise<{ dir: string; git: (...args: string[]) => Promise<Buffer> }> {
  const dir = await tempDir('deft-pack-');
  dirs.push(dir);
  const git = async (...args: string[]) => {
    const saved = { ...process.env };
    Object.assign(process.env, env);
    try {
      return (await runGit(null, ['-C', dir, '-c', 'gc.auto=0', ...args])).stdout;
    } finally {
      process.env = saved;
    }
  };
  await git('init', '-q');
  for (let version = 0; version < 12; version++) {
    for (let f = 0; f < 30; f++) {
      await mkdir(join(dir, `d${f % 5}`, `e${f % 3}`), { recursive: true });
      const lines = Array.from({ length: 200 }, (_, i) => `line ${i} of file ${f}${i === version ? ` changed in ${version}` : ''}`);
      await writeFile(join(dir, `d${f % 5}`, `e${f % 3}`, `f${f}-${version % 2 ? 'odd' : 'even'}.txt`), lines.join('\n'));
    }
    await git('add', '-A');
    await git('commit', '-qm', `version ${version}`);
  }
  await git('gc', '-q', '--aggressive');
  return { dir, git };
}

describe('objects read from packs in-process', () => {
  it('reads every tree, commit and blob of a packed repository (deltas applied) as git does, from its alternate too', async () => {
    const { dir, git } = await packedRepository();
    const listing = (await git('cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(deltabase)')).toString().trim().split('\n');
    expect(listing.filter((line) => !/ 0{40}$/.test(line)).length).toBeGreaterThan(20); // deltas there are
    // A store borrowing the repository's objects (as a seeded one does): its own packs and the alternate's.
    const store = join(dir, '.deft-store.git');
    await mkdir(join(store, 'objects', 'info'), { recursive: true });
    await writeFile(join(store, ALTERNATES), `${join(dir, '.git', 'objects')}\n`);
    const reader = new PackReader(store);
    // Every object as git reads it, through one cat-file: "<id> <type> <size>\n<body>\n".
    const batch = execFileSync('git', ['-C', dir, 'cat-file', '--batch'], { input: listing.map((l) => l.split(' ')[0]).join('\n') + '\n', maxBuffer: 2 ** 28 });
    const bodies = new Map<string, Buffer>();
    for (let at = 0; at < batch.length; ) {
      const end = batch.indexOf(0x0a, at);
      const [id = '', , size = '0'] = batch.toString('latin1', at, end).split(' ');
      bodies.set(id, batch.subarray(end + 1, end + 1 + Number(size)));
      at = end + 1 + Number(size) + 1;
    }
    let read = 0;
    for (const line of listing) {
      const [id = '', type = ''] = line.split(' ');
      if (!['tree', 'commit', 'blob'].includes(type)) continue;
      const body = reader.read(id, type as ObjectType);
      expect(body, `${type} ${id}`).not.toBeNull();
      expect(body!.equals(bodies.get(id)!)).toBe(true);
      // Asked as another type, it is not handed out.
      expect(reader.read(id, type === 'tree' ? 'blob' : 'tree')).toBeNull();
      read++;
    }
    expect(read).toBeGreaterThan(100);
    expect(reader.read('0'.repeat(40), 'tree')).toBeNull();
    reader.close();
  });

  it('answers null (git is asked then) for a damaged pack, and never follows the alternate’s own alternates', async () => {
    const { dir, git } = await packedRepository();
    const tree = (await git('rev-parse', 'HEAD^{tree}')).toString().trim();
    const pack = join(dir, '.git', 'objects', 'pack');
    const [packName] = (await readdir(pack)).filter((n) => n.endsWith('.pack'));
    // A second repository borrowing the first: a store whose alternate is that second one does not reach the first.
    const middle = await tempDir('deft-pack-middle-');
    dirs.push(middle);
    await mkdir(join(middle, 'info'), { recursive: true });
    await writeFile(join(middle, 'info', 'alternates'), `${join(dir, '.git', 'objects')}\n`);
    const store = await tempDir('deft-pack-store-');
    dirs.push(store);
    await mkdir(join(store, 'objects', 'info'), { recursive: true });
    await writeFile(join(store, ALTERNATES), `${middle}\n`);
    expect(new PackReader(store).read(tree, 'tree')).toBeNull();
    // Damaged bytes: every object's body is checked against its id (or fails to inflate): null, never wrong bytes.
    const direct = join(dir, '.deft-store.git');
    await mkdir(join(direct, 'objects', 'info'), { recursive: true });
    await writeFile(join(direct, ALTERNATES), `${join(dir, '.git', 'objects')}\n`);
    expect(new PackReader(direct).read(tree, 'tree')).not.toBeNull();
    const bytes = await readFile(join(pack, packName!));
    for (let at = 12; at < bytes.length - 20; at += 7) bytes[at] = bytes[at]! ^ 0x55;
    await rm(join(pack, packName!), { force: true });
    await writeFile(join(pack, packName!), bytes);
    expect(new PackReader(direct).read(tree, 'tree')).toBeNull();
    // A hostile index: fan-out entries past the object count, offsets past the pack's end. Null, never a throw.
    const [idxName] = (await readdir(pack)).filter((n) => n.endsWith('.idx'));
    const idx = await readFile(join(pack, idxName!));
    const count = idx.readUInt32BE(8 + 255 * 4);
    for (let i = 0; i < 255; i++) idx.writeUInt32BE(0x7fffff00 + i, 8 + i * 4);
    for (let i = 0; i < count; i++) idx.writeUInt32BE(0x7ffffff0, 8 + 256 * 4 + count * 24 + i * 4);
    await rm(join(pack, idxName!), { force: true });
    await writeFile(join(pack, idxName!), idx);
    expect(() => new PackReader(direct).read(tree, 'tree')).not.toThrow();
    expect(new PackReader(direct).read(tree, 'tree')).toBeNull();
  });
});

describe('objects written as one pack', () => {
  it('writes a pack and its index git verifies and reads (duplicates once), and PackReader reads back', async () => {
    const gitDir = join(await tempDir('deft-pack-write-'), 'store.git');
    dirs.push(join(gitDir, '..'));
    await runGit(null, ['init', '--bare', '-q', '--template=', gitDir]);
    const bodies = Array.from({ length: 300 }, (_, i) => Buffer.from(`file ${i}\n`.repeat(1 + (i % 50))));
    bodies.push(Buffer.alloc(0), Buffer.alloc(200_000, 7), bodies[3]!);
    const ids = writePack(
      gitDir,
      bodies.map((body) => ({ type: 'blob' as const, body })),
    );
    const git = async (...args: string[]) => (await runGit(null, ['--git-dir', gitDir, ...args])).stdout;
    const [idx] = (await readdir(join(gitDir, 'objects', 'pack'))).filter((n) => n.endsWith('.idx'));
    const verified = (await git('verify-pack', '-v', join(gitDir, 'objects', 'pack', idx!))).toString();
    expect(verified).toContain('non delta: 302 objects');
    await git('fsck', '--full', '--strict', '--no-dangling');
    // git reads every object back (one `cat-file --batch`: a process per object took over 20 s on a loaded machine).
    const batch = (await runGit(null, ['--git-dir', gitDir, 'cat-file', '--batch'], { input: `${ids.join('\n')}\n` })).stdout;
    let at = 0;
    const reader = new PackReader(gitDir);
    for (const [i, id] of ids.entries()) {
      const headerEnd = batch.indexOf(10, at);
      expect(batch.subarray(at, headerEnd).toString()).toBe(`${id} blob ${bodies[i]!.length}`);
      expect(batch.subarray(headerEnd + 1, headerEnd + 1 + bodies[i]!.length).equals(bodies[i]!)).toBe(true);
      at = headerEnd + 1 + bodies[i]!.length + 1;
      expect(reader.read(id, 'blob')?.equals(bodies[i]!)).toBe(true);
    }
    expect(at).toBe(batch.length);
    reader.close();
    expect((await readdir(join(gitDir, 'objects', 'pack'))).filter((n) => n.startsWith('tmp_'))).toEqual([]);
  });

  it('deflates each blob once and stores trees as zlib stored blocks (no deflate per tree, a large one in several blocks): git verifies and reads them', async () => {
    const gitDir = join(await tempDir('deft-pack-trees-'), 'store.git');
    dirs.push(join(gitDir, '..'));
    await runGit(null, ['init', '--bare', '-q', '--template=', gitDir]);
    const blobs = Array.from({ length: 40 }, (_, i) => Buffer.from(`blob ${i}\n`.repeat(1 + i)));
    const blobIds = blobs.map((body) => objectId('blob', body));
    // A tree of 2,000 entries (over 65,535 bytes: more than one stored block), one of a few, and one holding both.
    const entry = (name: string, i: number): TreeEntry => ({ mode: '100644', name: Buffer.from(name), id: blobIds[i % blobIds.length]! });
    const large = formatTree(Array.from({ length: 2_000 }, (_, i) => entry(`a-rather-long-file-name-${i}.ts`, i)));
    expect(large.length).toBeGreaterThan(65_535);
    const small = formatTree([entry('x.txt', 1), entry('y.txt', 2)]);
    const top = formatTree([
      { mode: '40000', name: Buffer.from('large'), id: objectId('tree', large) },
      { mode: '40000', name: Buffer.from('small'), id: objectId('tree', small) },
      entry('z.txt', 3),
    ]);
    const objects = [...blobs.map((body) => ({ type: 'blob' as const, body })), ...[large, small, top].map((body) => ({ type: 'tree' as const, body }))];
    const deflate = vi.spyOn(zlib, 'deflateSync');
    let ids: string[];
    try {
      ids = writePack(gitDir, objects);
      expect(deflate).toHaveBeenCalledTimes(blobs.length);
    } finally {
      deflate.mockRestore();
    }
    const git = async (...args: string[]) => (await runGit(null, ['--git-dir', gitDir, ...args])).stdout.toString();
    await git('fsck', '--full', '--strict', '--no-dangling');
    const [idx] = (await readdir(join(gitDir, 'objects', 'pack'))).filter((n) => n.endsWith('.idx'));
    expect(await git('verify-pack', '-v', join(gitDir, 'objects', 'pack', idx!))).toContain(`non delta: ${objects.length} objects`);
    expect(await git('ls-tree', '-r', '--name-only', ids.at(-1)!)).toContain('large/a-rather-long-file-name-1999.ts\n');
    expect(await git('cat-file', 'blob', `${ids.at(-1)!}:small/y.txt`)).toBe(blobs[2]!.toString());
    const reader = new PackReader(gitDir);
    for (const [i, object] of objects.entries()) expect(reader.read(ids[i]!, object.type)?.equals(object.body)).toBe(true);
    reader.close();
  });
});
