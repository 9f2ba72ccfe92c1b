import { mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '#contract/environment';
import { fileToolKit } from '#test-support/file-tools';
import { tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { LocalEnvironment } from './local/local-environment';
import { ripgrepPath } from './local/ripgrep-binary';
import { SshEnvironment } from './ssh/ssh-environment';

let sshd: TestSshd | null = null;
const backends: Record<string, () => Environment> = {};

beforeAll(async () => {
  // The remote's PATH holds ripgrep (the bundled one), as a server with rg installed would.
  const bin = await tempDir('deft-ssh-bin-');
  await symlink(ripgrepPath(), join(bin, 'rg'));
  sshd = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
  if (!sshd) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  const ssh = await SshEnvironment.connect({
    host: '127.0.0.1',
    port: sshd.port,
    username: sshd.username,
    privateKey: sshd.privateKey,
    knownHostsFiles: [sshd.knownHosts],
  });
  backends.local = () => new LocalEnvironment();
  backends.ssh = () => ssh;
}, 30_000);

afterAll(async () => {
  await backends.ssh?.().close();
  await sshd?.stop();
});

describe.each(['local', 'ssh'])('the file tools and commands on the %s backend', (name) => {
  const kit = () => fileToolKit({ environment: backends[name]!() });

  it('reads, writes, edits, globs and greps a workspace', async () => {
    const k = await kit();
    await k.put('src/a.ts', 'one\ntwo\nthree\n');
    const read = await k.call('Read', { path: 'src/a.ts' });
    expect(read.text).toContain('1\tone\n2\ttwo\n3\tthree');
    expect((await k.call('Edit', { path: 'src/a.ts', old_string: 'two', new_string: 'TWO' })).result.isError).toBeFalsy();
    expect(await k.get('src/a.ts')).toBe('one\nTWO\nthree\n');
    expect((await k.call('Write', { path: 'src/new/b.ts', content: 'export const b = 2;\n' })).result.isError).toBeFalsy();
    expect(await readFile(join(k.workspace, 'src/new/b.ts'), 'utf8')).toBe('export const b = 2;\n');
    expect((await k.call('Glob', { pattern: '**/*.ts' })).text).toMatch(/src\/new\/b\.ts[\s\S]*src\/a\.ts|src\/a\.ts[\s\S]*src\/new\/b\.ts/);
    expect((await k.call('Grep', { pattern: 'TWO', output_mode: 'content' })).text).toContain('src/a.ts');
    await k.dispose();
  });

  it('keeps the path guard: no write through a symlink out of the workspace, secrets refused', async () => {
    const k = await kit();
    await mkdir(join(k.outside, 'target'), { recursive: true });
    await symlink(join(k.outside, 'target'), join(k.workspace, 'link'));
    const write = await k.call('Write', { path: 'link/x.txt', content: 'escape' });
    expect(write.result.isError).toBe(true);
    expect(write.text).toMatch(/symlink/);
    await writeFile(join(k.workspace, '.env'), 'KEY=1\n');
    expect((await k.call('Read', { path: '.env' })).text).toMatch(/sensitive file/);
    await k.dispose();
  });

  it('runs a process: output, exit code, and a kill that ends the whole tree', { timeout: 30_000 }, async () => {
    const env = backends[name]!();
    const dir = await tempDir('deft-env-exec-');
    const proc = env.exec({ file: 'sh', args: ['-c', 'echo "in $(pwd)"; echo oops >&2; exit 3'], cwd: dir });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    expect(await proc.exit).toMatchObject({ code: 3 });
    expect(out).toBe(`in ${dir}\n`);
    expect(err).toBe('oops\n');
    const marker = `deft-tree-${Date.now()}`;
    const tree = env.exec({ file: 'sh', args: ['-c', `sleep 300 & sleep 301; echo ${marker}`], cwd: dir });
    await tree.started;
    expect(tree.pid).toBeGreaterThan(1);
    await new Promise((r) => setTimeout(r, 300));
    await tree.kill(1_000);
    const ended = await tree.exit;
    expect(ended.code === 0).toBe(false);
    // Zombies are dead: where PID 1 does not reap (a bare CI container), the orphaned sleep lingers as one.
    const check = env.exec({
      file: 'sh',
      args: ['-c', `ps -o pid=,stat= -g ${tree.pid} | awk '$2 !~ /^Z/' || true`],
      cwd: dir,
    });
    let left = '';
    check.stdout.on('data', (c: Buffer) => (left += c.toString()));
    await check.exit;
    expect(left.trim()).toBe('');
  });
});

describe('Grep and Glob over SSH: newest first without a round trip per file', () => {
  const FILES = 2_500;
  /** Files with whole-second times in a scrambled order, a run of them sharing one second (ties go by path). */
  async function scrambled(k: Awaited<ReturnType<typeof fileToolKit>>): Promise<string[]> {
    const base = 1_700_000_000;
    const entries: { path: string; seconds: number }[] = [];
    for (let i = 0; i < FILES; i++) {
      const path = `src/${i % 10}/file ${String(i).padStart(4, '0')}.ts`;
      entries.push({ path, seconds: i % 50 === 0 ? base + 5_000 : base + ((i * 7_919) % FILES) });
    }
    for (const { path } of entries) await k.put(path, 'export const needle = 1;\n');
    await Promise.all(entries.map(({ path, seconds }) => utimes(join(k.workspace, path), seconds, seconds)));
    return entries.sort((a, b) => b.seconds - a.seconds || (a.path < b.path ? -1 : 1)).map((e) => e.path);
  }

  it('sorts a Glob of thousands of files with a few helper scripts and no SFTP call per file, in the order stats give', async () => {
    const ssh = backends.ssh!() as SshEnvironment;
    const k = await fileToolKit({ environment: ssh });
    const expected = await scrambled(k);
    const before = { ...ssh.usage };
    const glob = await k.call('Glob', { pattern: '**/*.ts' });
    const sftp = ssh.usage.sftpCalls - before.sftpCalls;
    expect(glob.text).toContain(`Found ${FILES} files`);
    expect(glob.text.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(expected.slice(0, 100));
    // The root's checks only: the 2,500 results cost none.
    expect(sftp).toBeLessThan(20);
    expect(ssh.usage.helperScripts - before.helperScripts).toBeLessThanOrEqual(3);
    const local = await fileToolKit({ environment: backends.local!() });
    await scrambled(local);
    expect((await local.call('Glob', { pattern: '**/*.ts' })).text).toBe(glob.text);
    await Promise.all([k.dispose(), local.dispose()]);
  }, 60_000);

  it('sorts Grep files_with_matches the same way, without an SFTP call per matching file', async () => {
    const ssh = backends.ssh!() as SshEnvironment;
    const k = await fileToolKit({ environment: ssh });
    const expected = await scrambled(k);
    const before = ssh.usage.sftpCalls;
    const grep = await k.call('Grep', { pattern: 'needle', head_limit: 0 });
    expect(ssh.usage.sftpCalls - before).toBeLessThan(20);
    expect(grep.text.split('\n').filter((line) => line.endsWith('.ts'))).toEqual(expected);
    const counted = await k.call('Grep', { pattern: 'needle', output_mode: 'count_matches', head_limit: 0 });
    expect(counted.text.split('\n').filter((line) => line.endsWith('.ts:1'))).toEqual(expected.map((path) => `${path}:1`));
    await k.dispose();
  }, 60_000);
});

describe('SSH host keys', () => {
  it('refuses an unknown host, printing its fingerprint, and a changed key, saying so', async () => {
    const known = join(await tempDir('deft-kh-'), 'known_hosts');
    await writeFile(known, '');
    const target = { host: '127.0.0.1', port: sshd!.port, username: sshd!.username, privateKey: sshd!.privateKey, knownHostsFiles: [known] };
    await expect(SshEnvironment.connect(target)).rejects.toThrow(/not a known host: its key fingerprint is SHA256:/);
    await writeFile(known, `[127.0.0.1]:${sshd!.port} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGKqHyYx0Z3G7+3k4wzJ2b3iZ8y0yqY7Kqk5Z0m2Ww1u\n`);
    await expect(SshEnvironment.connect(target)).rejects.toThrow(/host key of .* has CHANGED/);
    let asked = '';
    const accepted = await SshEnvironment.connect({ ...target, knownHostsFiles: [], acceptUnknownHost: async (_h, print) => ((asked = print), true) });
    expect(asked).toMatch(/^SHA256:/);
    await accepted.close();
  }, 30_000);

  it('refuses a key the server does not authorise', async () => {
    const other = await tempDir('deft-key-');
    const { execFileSync } = await import('node:child_process');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(other, 'k')]);
    await expect(
      SshEnvironment.connect({
        host: '127.0.0.1',
        port: sshd!.port,
        username: sshd!.username,
        privateKey: await readFile(join(other, 'k')),
        knownHostsFiles: [sshd!.knownHosts],
      }),
    ).rejects.toThrow(/Could not connect/);
  }, 30_000);
});
