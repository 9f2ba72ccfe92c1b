import { localEnvironment } from '#infra/environment/local/local-environment';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { VIEWER_MAX_BYTES, openableInEditor, readForViewer } from './workspace-file';

describe('the read-only file viewer', () => {
  it('shows a workspace file by its relative path, through the path policy', async () => {
    const ws = await tempDir();
    await mkdir(join(ws, 'src'));
    await writeFile(join(ws, 'src/a.ts'), 'one\ntwo\n');
    expect(await readForViewer(localEnvironment(), 'src/a.ts', ws, false)).toEqual({
      path: 'src/a.ts',
      content: 'one\ntwo\n',
      totalLines: 2,
      size: 8,
      truncated: false,
      canOpenExternally: false,
    });
    expect((await readForViewer(localEnvironment(), join(ws, 'src/a.ts'), ws, true)).canOpenExternally).toBe(true);
  });

  it('refuses secret files, binaries, folders, pipes and missing files with the reason', async () => {
    const ws = await tempDir();
    await writeFile(join(ws, '.env'), 'TOKEN=1');
    await writeFile(join(ws, 'blob.bin'), Buffer.from([0, 1, 2, 0, 3]));
    await mkdir(join(ws, 'dir'));
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    await symlink(join(ws, '.env'), join(ws, 'innocent.txt'));
    await expect(readForViewer(localEnvironment(), '.env', ws, false)).rejects.toThrow(/sensitive file/);
    await expect(readForViewer(localEnvironment(), 'innocent.txt', ws, false)).rejects.toThrow(/sensitive file/);
    await expect(readForViewer(localEnvironment(), 'blob.bin', ws, false)).rejects.toThrow(/not a text file/);
    await expect(readForViewer(localEnvironment(), 'dir', ws, false)).rejects.toThrow(/not a regular file/);
    await expect(readForViewer(localEnvironment(), 'pipe', ws, false)).rejects.toThrow(/not a regular file/);
    await expect(readForViewer(localEnvironment(), 'nope.txt', ws, false)).rejects.toThrow(/does not exist/);
    await expect(readForViewer(localEnvironment(), '../../etc/passwd', ws, false)).rejects.toThrow(/outside the workspace/);
  });

  it('cuts a long file at 1 MiB and says how long it is', async () => {
    const ws = await tempDir();
    await writeFile(join(ws, 'big.txt'), 'x'.repeat(99) + '\n'.repeat(1) + ('y'.repeat(99) + '\n').repeat(20_000));
    const view = await readForViewer(localEnvironment(), 'big.txt', ws, false);
    expect(view.truncated).toBe(true);
    expect(view.content.length).toBeLessThanOrEqual(VIEWER_MAX_BYTES);
    expect(view.totalLines).toBeGreaterThan(19_000);
  });

  it('hands only plain text files inside the workspace to the system editor', async () => {
    const ws = await tempDir();
    await writeFile(join(ws, 'notes.md'), '# Notes\n');
    await writeFile(join(ws, 'run.command'), 'rm -rf ~\n');
    await writeFile(join(ws, 'app.desktop'), '[Desktop Entry]\nExec=evil\n');
    await writeFile(join(ws, 'script'), '#!/bin/sh\necho hi\n');
    await chmod(join(ws, 'script'), 0o755);
    const outside = await tempDir();
    await writeFile(join(outside, 'x.txt'), 'x');
    expect(await openableInEditor(localEnvironment(), 'notes.md', ws)).toBe(join(ws, 'notes.md'));
    await expect(openableInEditor(localEnvironment(), 'run.command', ws)).rejects.toThrow(/may run when opened/);
    await expect(openableInEditor(localEnvironment(), 'app.desktop', ws)).rejects.toThrow(/may run when opened/);
    await expect(openableInEditor(localEnvironment(), 'script', ws)).rejects.toThrow(/executable/);
    await expect(openableInEditor(localEnvironment(), join(outside, 'x.txt'), ws)).rejects.toThrow(/outside the workspace/);
  });
});
