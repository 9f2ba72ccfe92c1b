import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectionState } from '#contract/environment';
import { fileToolKit } from '#test-support/file-tools';
import { tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { waitFor } from '#test-support/wait';
import { openRemoteFolder } from './open-remote';
import { SshEnvironment } from './ssh-environment';

// Issue 29: ~/.ssh/config aliases, ProxyJump, configs that would run commands, and reconnecting — against a real sshd.

let sshd: TestSshd;
let userHome: string;
let remoteDir: string;

beforeAll(async () => {
  const started = await startSshd();
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
}, 30_000);
afterAll(() => sshd?.stop());

beforeEach(async () => {
  userHome = await tempDir('deft-sshcfg-home-');
  remoteDir = await tempDir('deft-sshcfg-ws-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await mkdir(join(userHome, 'keys'));
  await mkdir(join(userHome, 'kh'));
  // Not at a default place: only the config's IdentityFile and UserKnownHostsFile can find them.
  await writeFile(join(userHome, 'keys', 'deft_key'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, 'kh', 'known'), await readFile(sshd.knownHosts));
});

const writeConfig = (text: string) => writeFile(join(userHome, '.ssh', 'config'), text);
// A local user name the server does not have: the config's User must be what logs in.
const options = () => ({ userHome, localUser: 'not-a-user-here' });
const hostBlock = (name: string, extra = '') =>
  `Host ${name}\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.username}\n  IdentityFile ~/keys/deft_key\n  IdentitiesOnly yes\n  UserKnownHostsFile ~/kh/known\n${extra}`;

describe('~/.ssh/config', () => {
  it('resolves an alias: HostName, Port, User, IdentityFile (with ~), UserKnownHostsFile', { timeout: 30_000 }, async () => {
    await writeConfig(`# mine\n${hostBlock('dev*')}\nHost *\n  ServerAliveInterval 30\n`);
    const folder = await openRemoteFolder(`devbox:${remoteDir}`, options());
    try {
      expect(folder.workspace).toBe(remoteDir);
      expect(folder.environment.label).toBe(`${sshd.username}@127.0.0.1:${sshd.port}`);
      expect(folder.id).toBe(`ssh://${sshd.username}@devbox:${sshd.port}${remoteDir}`);
      await folder.environment.writeFile(join(remoteDir, 'hello.txt'), 'hi\n');
      expect(await readFile(join(remoteDir, 'hello.txt'), 'utf8')).toBe('hi\n');
    } finally {
      await folder.environment.close();
    }
    // Without the alias the defaults apply: no key at ~/.ssh/id_*, so nothing to log in with.
    await expect(openRemoteFolder(`127.0.0.1:${sshd.port}:${remoteDir}`, options())).rejects.toThrow(/No way to log in/);
  });

  it('goes through a jump host (ProxyJump), each hop checked against known_hosts', { timeout: 30_000 }, async () => {
    await writeConfig(`${hostBlock('jump')}\n${hostBlock('inner', '  ProxyJump jump\n')}`);
    // The earlier tests' connections are closed, but sshd's process for one exits a moment later: count from none.
    for (const started = Date.now(); (await sshd.connectionCount()) > 0 && Date.now() - started < 10_000; ) await new Promise((r) => setTimeout(r, 50));
    const before = await sshd.connectionCount();
    const folder = await openRemoteFolder(`inner:${remoteDir}`, options());
    try {
      // Two connections on the server: the jump host's, and the target's forwarded through it.
      expect(await sshd.connectionCount()).toBe(before + 2);
      const proc = folder.environment.exec({ file: 'sh', args: ['-c', 'pwd'], cwd: remoteDir });
      let out = '';
      proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
      expect(await proc.exit).toMatchObject({ code: 0 });
      expect(out).toBe(`${remoteDir}\n`);
    } finally {
      await folder.environment.close();
    }
    // The jump host's key is checked too: unknown there, refused.
    await writeConfig(`${hostBlock('jump').replace('~/kh/known', '~/kh/empty')}\n${hostBlock('inner', '  ProxyJump jump\n')}`);
    await expect(openRemoteFolder(`inner:${remoteDir}`, options())).rejects.toThrow(/not a known host/);
  });

  it('never runs a command the config names: ProxyCommand and Match exec are refused, LocalCommand and Include ignored', { timeout: 30_000 }, async () => {
    const proxyMark = join(userHome, 'proxy-ran');
    await writeConfig(`Host evil\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  ProxyCommand touch ${proxyMark}; nc %h %p\n`);
    await expect(openRemoteFolder(`evil:${remoteDir}`, options())).rejects.toThrow(/ProxyCommand .*Deft never runs commands/);
    expect(existsSync(proxyMark)).toBe(false);

    const execMark = join(userHome, 'match-ran');
    await writeConfig(`Match exec "touch ${execMark}"\n  User root\n${hostBlock('dev')}`);
    await expect(openRemoteFolder(`dev:${remoteDir}`, options())).rejects.toThrow(/Match exec.*never runs commands/);
    expect(existsSync(execMark)).toBe(false);

    const localMark = join(userHome, 'local-ran');
    const includeMark = join(userHome, 'include-ran');
    await writeConfig(
      `Include /dev/zero ~/$(touch ${includeMark}) \`touch ${includeMark}\`\nHost *\n  CanonicalizeHostName yes\n  CanonicalDomains example.com\n${hostBlock('dev', `  PermitLocalCommand yes\n  LocalCommand touch ${localMark}\n  KnownHostsCommand touch ${localMark}\n`)}`,
    );
    const folder = await openRemoteFolder(`dev:${remoteDir}`, options());
    await folder.environment.close();
    expect(existsSync(localMark)).toBe(false);
    expect(existsSync(includeMark)).toBe(false);
  });
});

describe('a dropped connection', () => {
  it('fails what was in flight with "connection lost", reconnects with backoff, and the next tool call works', { timeout: 60_000 }, async () => {
    await writeConfig(hostBlock('dev'));
    const folder = await openRemoteFolder(`dev:${remoteDir}`, { ...options(), reconnect: { forMs: 20_000, delaysMs: [100, 200, 400] } });
    const env = folder.environment;
    const states: ConnectionState[] = [];
    env.onConnectionState((state) => states.push(state));
    const kit = await fileToolKit({ environment: env });
    try {
      await kit.put('a.txt', 'alpha\n');
      const running = env.exec({ file: 'sleep', args: ['30'], cwd: kit.workspace });
      await running.started;
      expect(await sshd.killConnections()).toBeGreaterThan(0);
      const exit = await running.exit;
      expect(exit.error?.code).toBe('ECONNRESET');
      expect(exit.error?.message).toMatch(/connection to .* was lost/);
      // A call made while it reconnects waits for the new connection instead of failing.
      const read = await kit.call('Read', { path: 'a.txt' });
      expect(read.result.isError).toBeFalsy();
      expect(read.text).toContain('alpha');
      await waitFor(() => env.connectionState() === 'connected');
      expect(states).toEqual(['reconnecting', 'connected']);
      const edit = await kit.call('Edit', { path: 'a.txt', old_string: 'alpha', new_string: 'beta' });
      expect(edit.result.isError).toBeFalsy();
      expect(await kit.get('a.txt')).toBe('beta\n');
    } finally {
      await kit.dispose();
      await env.close();
    }
    expect(env.connectionState()).toBe('lost');
  });

  it('asks a look (stat) that the drop caught again on the new connection', { timeout: 60_000 }, async () => {
    await writeConfig(hostBlock('dev'));
    const folder = await openRemoteFolder(`dev:${remoteDir}`, { ...options(), reconnect: { forMs: 20_000, delaysMs: [100, 200, 400] } });
    const env = folder.environment;
    const kit = await fileToolKit({ environment: env });
    try {
      await kit.put('a.txt', 'alpha\n');
      const file = join(kit.workspace, 'a.txt');
      // Stats one after another, one always in flight, across the drop: each gets its answer.
      let stop = false;
      let answered = 0;
      const looking = (async () => {
        while (!stop) {
          expect((await env.stat(file)).size).toBe(6);
          answered++;
        }
      })();
      await waitFor(() => answered > 20);
      expect(await sshd.killConnections()).toBeGreaterThan(0);
      const before = answered;
      await waitFor(() => env.connectionState() === 'connected' && answered > before + 20);
      stop = true;
      await looking;
    } finally {
      await kit.dispose();
      await env.close();
    }
  });

  it('gives up after its bound: later calls fail with the reason, not hang', { timeout: 30_000 }, async () => {
    const other = await startSshd();
    if (!other) throw new Error('sshd missing');
    const env = await SshEnvironment.connect(
      { host: '127.0.0.1', port: other.port, username: other.username, privateKey: other.privateKey, knownHostsFiles: [other.knownHosts] },
      undefined,
      { forMs: 1_500, delaysMs: [200] },
    );
    // The server's connections killed and the server gone at once: nothing to reconnect to.
    await other.killConnections();
    await other.stop();
    await waitFor(() => env.connectionState() === 'lost', 10_000);
    await expect(env.stat('/')).rejects.toThrow(/lost and could not be reopened/);
    await env.close();
  });
});
