import { localEnvironment } from '#infra/environment/local/local-environment';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchCommand } from '../../../host/dispatch';
import { createHarness, tempDir } from '#test-support/harness';
import { FileIndex } from './file-index';

async function files(root: string, paths: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(paths)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

describe('the @-mention file index', () => {
  let index: FileIndex | undefined;
  afterEach(() => index?.close());

  it('lists what .gitignore keeps, never secret files or .git, and matches fuzzily with the file name first', async () => {
    const ws = await tempDir();
    await files(ws, {
      '.gitignore': 'dist/\n*.log\n',
      'src/money.js': '',
      'src/components/Button.tsx': '',
      'test/money.test.js': '',
      'dist/money.js': '',
      'debug.log': '',
      '.env': 'KEY=1',
      '.env.local': 'KEY=2',
      '.env.example': 'KEY=',
      'keys/id_rsa': 'secret',
      '.git/config': '',
      '.github/workflows/ci.yml': '',
    });
    index = new FileIndex(localEnvironment(), ws);
    const all = await index.search('', 200);
    const paths = all.files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['src/money.js', 'src/components/Button.tsx', '.env.example', '.github/workflows/ci.yml', 'src/', 'src/components/']),
    );
    for (const hidden of ['dist/money.js', 'debug.log', '.env', '.env.local', 'keys/id_rsa', '.git/config']) expect(paths).not.toContain(hidden);
    // Shallow entries come first when nothing is typed.
    expect(paths.indexOf('.gitignore')).toBeLessThan(paths.indexOf('src/components/Button.tsx'));

    const money = await index.search('money', 10);
    expect(money.files[0]).toEqual({ path: 'src/money.js', positions: [4, 5, 6, 7, 8] });
    expect(money.files.map((f) => f.path)).toContain('test/money.test.js');
    expect((await index.search('btn', 10)).files.map((f) => f.path)).toContain('src/components/Button.tsx');
    expect((await index.search('zzzzqqq', 10)).files).toEqual([]);
  });

  it('answers from the index it has while a rebuild picks up new files; a query that finds nothing waits for it', async () => {
    const ws = await tempDir();
    await files(ws, { 'a.txt': '' });
    let now = 0;
    index = new FileIndex(localEnvironment(), ws, () => now);
    expect((await index.search('new', 10)).files).toEqual([]);
    await files(ws, { 'brand-new.txt': '' });
    now += 60_000;
    const stale = await index.search('a.txt', 10);
    expect(stale).toMatchObject({ indexing: true, files: [{ path: 'a.txt' }] });
    await index.refresh();
    expect((await index.search('brand', 10)).files.map((f) => f.path)).toEqual(['brand-new.txt']);
    // Fresh: a miss does not rebuild again.
    await files(ws, { 'later.txt': '' });
    expect((await index.search('later', 10)).files).toEqual([]);
    now += 2_000;
    expect((await index.search('later', 10)).files.map((f) => f.path)).toEqual(['later.txt']);
  });

  it("a slow build's age counts from when its listing began: a file made meanwhile is found at the next miss", async () => {
    const ws = await tempDir();
    await files(ws, { 'a.txt': '' });
    let now = 0;
    index = new FileIndex(localEnvironment(), ws, () => now);
    // A build that begins at 0 and (on a loaded machine) ends 1.5 s later; the file is made after it listed.
    const building = index.refresh();
    now = 1_500;
    await building;
    await files(ws, { 'made-meanwhile.txt': '' });
    expect((await index.search('meanwhile', 10)).files.map((f) => f.path)).toEqual(['made-meanwhile.txt']);
  });

  it('treats a query as text: regex syntax, huge and odd input never throw', async () => {
    const ws = await tempDir();
    await files(ws, { 'a(b).txt': '', 'c[d].md': '' });
    index = new FileIndex(localEnvironment(), ws);
    expect((await index.search('a(b', 10)).files.map((f) => f.path)).toContain('a(b).txt');
    expect((await index.search('[d]', 10)).files.map((f) => f.path)).toContain('c[d].md');
    expect((await index.search('.*'.repeat(200), 10)).files).toBeDefined();
    expect((await index.search('\u0000\u202e', 10)).files).toEqual([]);
  });
});

describe('searchFiles through the protocol', () => {
  it('validates input (a query over 500 characters, a limit over 200 are refused)', async () => {
    const h = await createHarness();
    try {
      await files(h.workspace, { 'src/app.ts': '' });
      const ok = await dispatchCommand(h.core.handlers, 'searchFiles', { query: 'app' });
      expect(ok).toMatchObject({ ok: true, result: { files: [{ path: 'src/app.ts' }] } });
      expect(await dispatchCommand(h.core.handlers, 'searchFiles', { query: 'x'.repeat(501) })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
      expect(await dispatchCommand(h.core.handlers, 'searchFiles', { query: 'a', limit: 10_000 })).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    } finally {
      await h.dispose();
    }
  });
});
