import { localEnvironment } from '../environment/local/local-environment';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { guardPath, isWithin } from './path-guard';
import { isSensitivePath } from './sensitive';

let ws: string;
let outside: string;
beforeEach(async () => {
  ws = await tempDir('deft-guard-ws-');
  outside = await tempDir('deft-guard-out-');
  await mkdir(join(ws, 'src'));
  await writeFile(join(ws, 'src', 'a.ts'), 'a');
  await writeFile(join(outside, 'secret.txt'), 's');
  await symlink(outside, join(ws, 'link-out'));
  await symlink(join(ws, 'src'), join(ws, 'link-in'));
});

describe('guardPath', () => {
  it('resolves relative paths inside the workspace', async () => {
    expect(await guardPath('src/a.ts', 'read', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      real: join(ws, 'src/a.ts'),
      inside: true,
      display: 'src/a.ts',
    });
    expect(await guardPath('./src/../src/new.ts', 'write', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      real: join(ws, 'src/new.ts'),
      inside: true,
    });
    expect(await guardPath('deep/new/dir/x.ts', 'write', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      real: join(ws, 'deep/new/dir/x.ts'),
      inside: true,
    });
  });

  it('refuses a relative path that escapes, and says to use an absolute path', async () => {
    await expect(guardPath('../x', 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/must provide an absolute path/);
  });

  it('allows an absolute path outside the workspace', async () => {
    expect(await guardPath(join(outside, 'secret.txt'), 'read', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      inside: false,
      display: join(outside, 'secret.txt'),
    });
  });

  it('does not count a sibling with a common prefix as inside', async () => {
    expect(isWithin(`${ws}-evil/x`, ws)).toBe(false);
    await expect(guardPath(`../${ws.split('/').pop()}-evil/x`, 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/absolute path/);
  });

  it('treats a symlink that leaves the workspace as outside, for reads and writes', async () => {
    await expect(guardPath('link-out/secret.txt', 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/points outside the workspace/);
    await expect(guardPath('link-out/new.txt', 'write', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(
      /never follow a symlink out of the workspace/,
    );
    await expect(guardPath(join(ws, 'link-out/new.txt'), 'write', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(
      /never follow a symlink/,
    );
    expect(await guardPath(join(ws, 'link-out/secret.txt'), 'read', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      inside: false,
      real: join(outside, 'secret.txt'),
    });
  });

  it('accepts a symlink that stays inside', async () => {
    expect(await guardPath('link-in/a.ts', 'write', { environment: localEnvironment(), workspace: ws })).toMatchObject({
      inside: true,
      real: join(ws, 'src/a.ts'),
      display: 'src/a.ts',
    });
  });

  it('counts extra roots as inside', async () => {
    expect(await guardPath(join(outside, 'secret.txt'), 'read', { environment: localEnvironment(), workspace: ws, extraRoots: () => [outside] })).toMatchObject(
      { inside: true },
    );
  });

  it('refuses sensitive files whatever the path form, including through a symlink', async () => {
    await expect(guardPath('.env', 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/sensitive file/);
    await expect(guardPath('./config/../.ENV.local', 'write', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/sensitive/);
    await expect(guardPath('~/.ssh/id_rsa', 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/sensitive/);
    await writeFile(join(outside, '.env'), 'K=V');
    await symlink(join(outside, '.env'), join(ws, 'innocent.txt'));
    await expect(guardPath(join(ws, 'innocent.txt'), 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/sensitive/);
  });

  it('refuses a symlink loop or an over-long name with a message, not a raw errno', async () => {
    await symlink('loop-b', join(ws, 'loop-a'));
    await symlink('loop-a', join(ws, 'loop-b'));
    for (const intent of ['read', 'write', 'search'] as const) {
      await expect(guardPath('loop-a', intent, { environment: localEnvironment(), workspace: ws })).rejects.toMatchObject({
        name: 'ToolInputError',
        message: expect.stringMatching(/symlink loop/),
      });
      await expect(guardPath('loop-a/child.txt', intent, { environment: localEnvironment(), workspace: ws })).rejects.toMatchObject({
        name: 'ToolInputError',
        message: expect.stringMatching(/symlink loop/),
      });
    }
    await expect(guardPath(`${'n'.repeat(300)}.txt`, 'write', { environment: localEnvironment(), workspace: ws })).rejects.toMatchObject({
      name: 'ToolInputError',
      message: expect.stringMatching(/too long/),
    });
  });

  it('expands ~ and refuses empty paths', async () => {
    expect((await guardPath('~/x.txt', 'read', { environment: localEnvironment(), workspace: ws })).lexical).toBe(join(homedir(), 'x.txt'));
    await expect(guardPath('  ', 'read', { environment: localEnvironment(), workspace: ws })).rejects.toThrow(/empty/);
  });
});

describe('isSensitivePath', () => {
  it.each([
    '.env',
    '.env.local',
    '.ENV.production',
    'id_rsa',
    'id_ed25519',
    'id_ecdsa',
    'credentials',
    'id_rsa_old',
    'id_rsa-2019',
    'id_rsa.bak',
    'id_rsa_pub',
    '.env.pub',
    'id_ed25519.key',
    'credentials.pem',
    '/home/u/.aws/credentials',
    'C:\\Users\\u\\.gcp\\credentials',
  ])('refuses %s', (p) => expect(isSensitivePath(p)).toBe(true));
  it.each([
    '.env.example',
    '.env.sample',
    '.env.template',
    'id_rsa.pub',
    'id_ed25519.pub',
    'id_ed25519_work.pub',
    'ID_RSA-2019.PUB',
    'id_ecdsa.old.pub',
    'id_rsafoo',
    'credentials.json',
    'src/env.ts',
    'my.environment',
  ])('allows %s', (p) => expect(isSensitivePath(p)).toBe(false));
});
