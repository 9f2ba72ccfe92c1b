import { mkdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { localEnvironment } from '../local/local-environment';
import { clientFilesEnvironment } from './client-fs-environment';

let root: string;
let workspace: string;
const asked: string[] = [];
const written: Array<[string, string]> = [];
let failReads = false;

beforeEach(async () => {
  root = await realpath(await tempDir('deft-client-fs-'));
  workspace = join(root, 'ws');
  await mkdir(workspace);
  asked.length = 0;
  written.length = 0;
  failReads = false;
});

const environment = (offer = true) =>
  clientFilesEnvironment(localEnvironment(), workspace, () =>
    offer
      ? {
          readText: async (path) => {
            asked.push(path);
            if (failReads) throw new Error('the editor is gone');
            return `buffer of ${path.slice(path.lastIndexOf('/') + 1)}\n`;
          },
          writeText: async (path, text) => {
            written.push([path, text]);
          },
        }
      : null,
  );

describe('clientFilesEnvironment', () => {
  it('reads a text file inside the workspace from the editor, its size included, and writes through it', async () => {
    const file = join(workspace, 'a.txt');
    await writeFile(file, 'disk\n');
    const env = environment();
    expect((await env.stat(file)).size).toBe(Buffer.byteLength('buffer of a.txt\n'));
    expect(await env.readText(file)).toBe('buffer of a.txt\n');
    const reader = await env.openRead(file);
    const into = Buffer.alloc(reader.size);
    await reader.read(into, 0, reader.size);
    expect(into.toString()).toBe('buffer of a.txt\n');
    await env.replaceFile(file, 'new\n');
    expect(written).toEqual([[file, 'new\n']]);
    expect(await readFile(file, 'utf8')).toBe('disk\n');
  });

  it('never asks the editor about files outside the workspace, binary files or folders, and falls back to disk when it fails', async () => {
    const outside = join(root, 'outside.txt');
    await writeFile(outside, 'outside\n');
    const binary = join(workspace, 'b.bin');
    await writeFile(binary, Buffer.from([1, 0, 2, 0]));
    await symlink(outside, join(workspace, 'link.txt'));
    const env = environment();
    expect(await env.readText(outside)).toBe('outside\n');
    expect((await env.readBytes(binary)).equals(Buffer.from([1, 0, 2, 0]))).toBe(true);
    // A link is not a regular file: the path guard resolves it to the real path first, which is outside.
    expect(await env.readText(join(workspace, 'link.txt'))).toBe('outside\n');
    expect((await env.stat(workspace)).isDirectory()).toBe(true);
    await env.replaceFile(outside, 'changed\n');
    expect(await readFile(outside, 'utf8')).toBe('changed\n');
    expect(asked).toEqual([]);
    expect(written).toEqual([]);

    const file = join(workspace, 'c.txt');
    await writeFile(file, 'on disk\n');
    failReads = true;
    expect(await env.readText(file)).toBe('on disk\n');
    expect(await environment(false).readText(file)).toBe('on disk\n');
  });
});
