import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../agent/test-support/harness';
import { mayOpenInEditor } from './open-in-editor';

let dir = '';
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('Open in editor', () => {
  it('opens text and source files, and only reveals what the system could run', async () => {
    dir = await tempDir('deft-open-');
    const file = async (name: string, mode = 0o644) => {
      await writeFile(join(dir, name), 'x\n');
      await chmod(join(dir, name), mode);
      return join(dir, name);
    };
    expect(await mayOpenInEditor(await file('app.ts'))).toBe(true);
    expect(await mayOpenInEditor(await file('README.md'))).toBe(true);
    for (const name of ['evil.desktop', 'run.command', 'setup.bat', 'x.exe', 'tool.js', 'Makefile', 'page.html']) expect(await mayOpenInEditor(await file(name))).toBe(false);
    if (process.platform !== 'win32') expect(await mayOpenInEditor(await file('script.py', 0o755))).toBe(false);
    expect(await mayOpenInEditor(join(dir, 'missing.ts'))).toBe(false);
  });
});
