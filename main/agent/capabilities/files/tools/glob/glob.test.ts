import { symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';

let kit: FileToolKit;
let clock = 1_000_000;
async function put(path: string, content = 'x\n') {
  const full = await kit.put(path, content);
  clock += 10;
  await utimes(full, clock, clock);
  return full;
}

beforeEach(async () => {
  kit = await fileToolKit();
  for (const path of [
    'src/a.ts',
    'src/b.tsx',
    'src/deep/c.ts',
    'lib/d.ts',
    'README.md',
    '.hidden/e.ts',
    '.gitignore',
    'dist/f.ts',
    '.git/g.ts',
    '.env.ts',
    '.env',
    'keys/id_rsa_old.ts',
    'keys/id_rsa.ts.pub',
  ]) {
    await put(path, path === '.gitignore' ? 'dist/\n' : 'x\n');
  }
});
afterEach(async () => {
  await kit.dispose();
});

describe('Glob', () => {
  it('lists matching files at any depth, newest first, hidden included, ignored/VCS/secrets excluded', async () => {
    const { result, execution } = await kit.call('Glob', { pattern: '*.ts' });
    expect(result.output).toBe(
      [
        'Filtered 2 sensitive file(s) (secrets are never searched or listed): .env.ts, keys/id_rsa_old.ts.',
        '.hidden/e.ts',
        'lib/d.ts',
        'src/deep/c.ts',
        'src/a.ts',
      ].join('\n'),
    );
    expect(result.display).toEqual({ kind: 'file_list', files: ['.hidden/e.ts', 'lib/d.ts', 'src/deep/c.ts', 'src/a.ts'], total: 4 });
    expect(execution!.readOnly).toBe(true);
    expect(execution!.accesses).toEqual([{ kind: 'file', operation: 'search', path: kit.workspace, recursive: true }]);
    expect(execution!.approvalRule).toBe('Glob(\\*.ts)');
    expect(execution!.matchesRule!('*.ts')).toBe(true);
    expect(execution!.matchesRule!('*.md')).toBe(false);
  });

  it('matches patterns with a slash from the search root, supports braces, and searches a given folder', async () => {
    expect((await kit.call('Glob', { pattern: 'src/*.ts' })).result.output).toBe('src/a.ts');
    expect((await kit.call('Glob', { pattern: './src/**/*.ts' })).result.output).toBe('src/deep/c.ts\nsrc/a.ts');
    expect((await kit.call('Glob', { pattern: 'src/*.{ts,tsx}' })).result.output).toBe('src/b.tsx\nsrc/a.ts');
    expect((await kit.call('Glob', { pattern: '*.ts', path: 'src' })).result.output).toBe('src/deep/c.ts\nsrc/a.ts');
    expect((await kit.call('Glob', { pattern: 'deep/*', path: 'src' })).result.output).toBe('src/deep/c.ts');
  });

  it('names files relative to a workspace opened through a symlink (Grep too)', async () => {
    const alias = join(kit.outside, 'alias');
    await symlink(kit.workspace, alias);
    kit.env.workspace = alias;
    expect((await kit.call('Glob', { pattern: 'src/*.ts' })).result.output).toBe('src/a.ts');
    expect((await kit.call('Glob', { pattern: '*.ts', path: join(alias, 'src') })).result.output).toBe('src/deep/c.ts\nsrc/a.ts');
    expect((await kit.call('Grep', { pattern: 'x', path: 'lib' })).result.output).toBe('Found 1 file (newest first).\nlib/d.ts');
    expect((await kit.call('Grep', { pattern: 'x', path: 'lib', output_mode: 'content' })).result.output).toBe(
      'Found 1 matching line in 1 file.\nlib/d.ts:1:x',
    );
  });

  it('lists ignored files on request, never VCS folders', async () => {
    const { result } = await kit.call('Glob', { pattern: '*.ts', include_ignored: true });
    expect(result.output).toContain('dist/f.ts');
    expect(result.output).not.toContain('.git/');
  });

  it('caps at 100 files, newest first, with a clear truncation line', async () => {
    for (let i = 0; i < 120; i++) await put(`many/f${String(i).padStart(3, '0')}.txt`);
    const { result } = await kit.call('Glob', { pattern: '*.txt' });
    const out = (result.output as string).split('\n');
    expect(out[0]).toBe('Found 120 files; showing the 100 most recently modified.');
    expect(out[1]).toBe('many/f119.txt');
    expect(out[100]).toBe('many/f020.txt');
    expect(out.at(-1)).toBe('[Truncated at 100 matches — use a more specific pattern or path]');
    expect(result.display).toMatchObject({ kind: 'file_list', total: 120 });
    for (let i = 0; i < 100; i++) await put(`exact/g${i}.md`);
    expect((await kit.call('Glob', { pattern: 'exact/*.md' })).result.output).toMatch(/^Found 100 matches\.\n/);
  });

  it('searches outside the workspace by absolute path or absolute pattern, showing absolute paths', async () => {
    await kit.put(join(kit.outside, 'docs/guide.md'), '# g\n');
    const byPattern = await kit.call('Glob', { pattern: `${kit.outside}/docs/*.md` });
    expect(byPattern.result.output).toBe(join(kit.outside, 'docs/guide.md'));
    const byPath = await kit.call('Glob', { pattern: '*.md', path: kit.outside });
    expect(byPath.result.output).toBe(join(kit.outside, 'docs/guide.md'));
  });

  it('accepts include_dirs (sent by models trained on other agents) and says folders are not listed', async () => {
    const { result } = await kit.call('Glob', { pattern: 'src/**/*.ts', include_dirs: true });
    expect(result.isError).toBeFalsy();
    expect(result.output).toBe(
      ['Folders are not listed, only files: the folders that hold these files are in their paths.', 'src/deep/c.ts', 'src/a.ts'].join('\n'),
    );
    expect((await kit.call('Glob', { pattern: 'src/**/*.ts', include_dirs: false })).result.output).toBe(['src/deep/c.ts', 'src/a.ts'].join('\n'));
  });

  it('explains bad roots and patterns', async () => {
    expect((await kit.call('Glob', { pattern: '*.zz' })).result.output).toBe('No files match "*.zz".');
    expect((await kit.call('Glob', { pattern: '*', path: 'README.md' })).text).toBe(
      'README.md is not a directory. Give Glob a folder as path (use Read for a single file).',
    );
    expect((await kit.call('Glob', { pattern: '*', path: 'missing' })).text).toMatch(/^missing does not exist/);
    expect((await kit.call('Glob', { pattern: '../*.ts' })).text).toMatch(/may not contain "\.\."/);
    expect((await kit.call('Glob', { pattern: '*', path: '..' })).text).toMatch(/must provide an absolute path/);
    expect((await kit.call('Glob', { pattern: `${kit.outside}/x.md`, path: 'src' })).text).toMatch(/either an absolute pattern, or a path/);
  });
});
