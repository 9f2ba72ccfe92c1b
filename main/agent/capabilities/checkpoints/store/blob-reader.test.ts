import { execFileSync } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { BlobReader } from './blob-reader';

const dirs: string[] = [];
const readers: BlobReader[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function store() {
  const root = await tempDir('deft-blobs-');
  dirs.push(root);
  const gitDir = join(root, 'store.git');
  execFileSync('git', ['init', '--bare', '-q', gitDir]);
  await mkdir(join(root, 'ws'));
  const places = { gitDir, workTree: join(root, 'ws'), indexFile: join(gitDir, 'index') };
  const put = (content: string | Buffer) => execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: content }).toString().trim();
  const reader = new BlobReader(places);
  readers.push(reader);
  return { reader, put };
}

describe('BlobReader', () => {
  it('reads blobs in order through one git, finds objects written after it started, and says which one is missing', async () => {
    const { reader, put } = await store();
    const text = put('hello\n');
    const binary = put(Buffer.from([0, 1, 2, 10, 10, 255]));
    const empty = put('');
    const [a, b, c] = await Promise.all([reader.read(text), reader.read(binary), reader.read(empty)]);
    expect(a.toString()).toBe('hello\n');
    expect([...b]).toEqual([0, 1, 2, 10, 10, 255]);
    expect(c.length).toBe(0);
    const big = 'x'.repeat(300_000) + '\n';
    const later = put(big);
    expect((await reader.read(later)).toString()).toBe(big);
    await expect(reader.read('0'.repeat(40))).rejects.toThrow(/lost object 0{40}/);
    // Still usable after a miss, and after being closed (a new git starts).
    expect((await reader.read(text)).toString()).toBe('hello\n');
    reader.close();
    expect((await reader.read(text)).toString()).toBe('hello\n');
    await expect(reader.read('not-an-id\nHEAD')).rejects.toThrow(/not an object id/);
  });
});
