import { chmod, lstat, readlink, stat, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileToolKit, fileToolKit } from '#test-support/file-tools';

let kit: FileToolKit;
beforeEach(async () => {
  kit = await fileToolKit();
});
afterEach(async () => {
  await kit.dispose();
});

describe('Write', () => {
  it('creates a file and its parent folders, reporting UTF-8 bytes, with a diff', async () => {
    const { result, execution } = await kit.call('Write', { path: 'src/deep/new.ts', content: 'héllo\nworld\n' });
    expect(result.output).toBe('Created src/deep/new.ts and wrote 13 bytes.');
    expect(await kit.get('src/deep/new.ts')).toBe('héllo\nworld\n');
    expect(result.display).toEqual({
      kind: 'diff',
      path: 'src/deep/new.ts',
      hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+héllo', '+world'] }],
      added: 2,
      removed: 0,
    });
    expect(execution!.display).toMatchObject({ kind: 'diff', hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+héllo', '+world'] }] });
    expect(execution!.accesses).toEqual([{ kind: 'file', operation: 'write', path: join(kit.workspace, 'src/deep/new.ts') }]);
    expect(execution!.approvalRule).toBe(`Write(${join(kit.workspace, 'src/deep/new.ts')})`);
    expect(execution!.readOnly).toBeFalsy();
  });

  it('refuses to overwrite a file this session has not read, then overwrites after a Read', async () => {
    await kit.put('a.txt', 'old\n');
    const refused = await kit.call('Write', { path: 'a.txt', content: 'new\n' });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toBe(
      'a.txt has not been read in this session yet. Read it first (Read with path "a.txt"), then write it again, so you change what is really in the file.',
    );
    expect(await kit.get('a.txt')).toBe('old\n');
    await kit.call('Read', { path: 'a.txt' });
    const { result } = await kit.call('Write', { path: 'a.txt', content: 'new\n' });
    expect(result.output).toBe('Wrote 4 bytes to a.txt.');
    expect(result.display).toMatchObject({ kind: 'diff', hunks: [{ lines: ['-old', '+new'] }] });
  });

  it('refuses when the file changed on disk since it was read', async () => {
    const path = await kit.put('a.txt', 'old\n');
    await kit.call('Read', { path: 'a.txt' });
    await kit.put('a.txt', 'changed by someone else\n');
    await utimes(path, new Date(), new Date(Date.now() + 5_000));
    const refused = await kit.call('Write', { path: 'a.txt', content: 'mine\n' });
    expect(refused.text).toMatch(
      /^a\.txt was modified on disk since you last read or wrote it \(it is now 24 bytes, last modified .*\); .*Read it again, then redo the write/,
    );
    expect(await kit.get('a.txt')).toBe('changed by someone else\n');
  });

  it('lets the agent keep writing a file it wrote itself', async () => {
    await kit.call('Write', { path: 'gen.txt', content: 'part 1\n' });
    const appended = await kit.call('Write', { path: 'gen.txt', content: 'part 2', mode: 'append' });
    expect(appended.result.output).toBe('Appended 6 bytes to gen.txt.');
    expect(await kit.get('gen.txt')).toBe('part 1\npart 2');
    await kit.call('Write', { path: 'gen.txt', content: 'again\n' });
    expect(await kit.get('gen.txt')).toBe('again\n');
  });

  it('keeps the file mode and its CRLF line endings', async () => {
    const path = await kit.put('run.sh', '#!/bin/sh\r\necho hi\r\n');
    await chmod(path, 0o755);
    await kit.call('Read', { path: 'run.sh' });
    const { result } = await kit.call('Write', { path: 'run.sh', content: '#!/bin/sh\necho bye\n' });
    expect(result.output).toBe('Wrote 21 bytes to run.sh (kept its CRLF line endings).');
    expect(await kit.get('run.sh')).toBe('#!/bin/sh\r\necho bye\r\n');
    expect((await stat(path)).mode & 0o777).toBe(0o755);
  });

  it('refuses folders, and a parent path that is a file', async () => {
    await kit.put('dir/x.txt', 'x');
    expect((await kit.call('Write', { path: 'dir', content: 'x' })).text).toBe('dir is a folder; give Write the path of a file.');
    expect((await kit.call('Write', { path: 'dir/x.txt/y.txt', content: 'x' })).text).toMatch(/its parent .*x\.txt exists but is not a folder/);
  });

  it('never writes through a symlink out of the workspace, never writes secrets, and refuses relative escapes', async () => {
    await symlink(kit.outside, join(kit.workspace, 'out'));
    expect((await kit.call('Write', { path: 'out/evil.txt', content: 'x' })).text).toMatch(/never follow a symlink out of the workspace/);
    expect((await kit.call('Write', { path: '../evil.txt', content: 'x' })).text).toMatch(/must provide an absolute path/);
    expect((await kit.call('Write', { path: 'config/.env.production', content: 'x' })).text).toMatch(/sensitive file/);
    expect((await kit.call('Write', { path: 'id_ecdsa.tmp', content: 'x' })).text).toMatch(/sensitive file/);
    const outsideFile = join(kit.outside, 'ok.txt');
    expect((await kit.call('Write', { path: outsideFile, content: 'fine' })).result.output).toBe(`Created ${outsideFile} and wrote 4 bytes.`);
  });

  it('writes through a symlink inside the workspace to its target, keeping the link', async () => {
    await kit.put('real.txt', 'v1\n');
    await symlink(join(kit.workspace, 'real.txt'), join(kit.workspace, 'alias.txt'));
    await kit.call('Read', { path: 'alias.txt' });
    expect((await kit.call('Write', { path: 'alias.txt', content: 'v2\n' })).result.output).toBe('Wrote 3 bytes to real.txt.');
    expect(await kit.get('real.txt')).toBe('v2\n');
    expect((await lstat(join(kit.workspace, 'alias.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(kit.workspace, 'alias.txt'))).toBe(join(kit.workspace, 'real.txt'));
  });
});
