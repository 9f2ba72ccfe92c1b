import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { MAX_LISTED_FOLDERS, remoteBrowser } from './remote-browse';
import { readRecentRemotes } from './remote-recent';

// Issue 29: the host's side of Open remote folder… against a real sshd — host keys asked, never a changed one,
// passphrases, hostile folder names, a capped listing, and no way to reach this machine's files.

let sshd: TestSshd;
let userHome: string;
let deftHome: string;
let remoteDir: string;
const opened: RemoteFolder[] = [];

beforeAll(async () => {
  const started = await startSshd();
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
}, 30_000);
afterAll(async () => {
  for (const folder of opened) await folder.environment.close();
  await sshd?.stop();
});

beforeEach(async () => {
  userHome = await tempDir('deft-browse-home-');
  deftHome = await tempDir('deft-browse-deft-');
  remoteDir = await tempDir('deft-browse-ws-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, 'deft_key'), sshd.privateKey, { mode: 0o600 });
  await writeFile(
    join(userHome, '.ssh', 'config'),
    `Host box\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.username}\n  IdentityFile ~/deft_key\n  IdentitiesOnly yes\n\nHost *.example\n  User nobody\nHost gpu-vm staging !bad\n  HostName 10.0.0.7\n  Port 2222\n`,
  );
});

const browser = () =>
  remoteBrowser({
    home: deftHome,
    env: { HOME: userHome, USER: 'not-a-user-here' },
    open: async (folder) => {
      opened.push(folder);
      return 'here';
    },
  });
const label = () => `${sshd.username}@127.0.0.1:${sshd.port}`;

describe('Open remote folder…', () => {
  it('asks about an unknown host key, connects once accepted, and remembers it only when asked to', { timeout: 30_000 }, async () => {
    const b = browser();
    expect((await b.listRemoteHosts({})).hosts).toEqual([
      { alias: 'box', detail: `${sshd.username}@127.0.0.1:${sshd.port}` },
      { alias: 'gpu-vm', detail: '10.0.0.7:2222' },
      { alias: 'staging', detail: '10.0.0.7:2222' },
    ]);
    const first = await b.connectRemoteHost({ host: 'box' });
    expect(first).toMatchObject({ status: 'host-key', host: label() });
    const print = (first as { fingerprint: string }).fingerprint;
    // Another fingerprint than the server's is no answer.
    const wrongPrint = `SHA256:${'A'.repeat(43)}`;
    expect(await b.connectRemoteHost({ host: 'box', hostKeys: [{ host: label(), fingerprint: wrongPrint, remember: true }] })).toMatchObject({
      status: 'host-key',
    });
    const once = await b.connectRemoteHost({ host: 'box', hostKeys: [{ host: label(), fingerprint: print, remember: false }] });
    expect(once).toMatchObject({ status: 'connected', label: label() });
    expect(await readFile(join(userHome, '.ssh', 'known_hosts'), 'utf8').catch(() => '')).toBe('');
    const kept = await b.connectRemoteHost({ host: 'box', hostKeys: [{ host: label(), fingerprint: print, remember: true }] });
    expect(kept.status).toBe('connected');
    expect(await readFile(join(userHome, '.ssh', 'known_hosts'), 'utf8')).toBe(`[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`);
    // Now known: no question.
    expect((await b.connectRemoteHost({ host: 'box' })).status).toBe('connected');
    await b.closeAll();
  });

  it('refuses a changed host key with the reason, whatever the window answers', { timeout: 30_000 }, async () => {
    const other = join(userHome, 'other');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other], { stdio: 'ignore' });
    const [type, key] = (await readFile(`${other}.pub`, 'utf8')).split(/\s+/);
    await writeFile(join(userHome, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${type} ${key}\n`);
    const b = browser();
    await expect(b.connectRemoteHost({ host: 'box' })).rejects.toThrow(/CHANGED/);
    await expect(b.connectRemoteHost({ host: 'box', hostKeys: [{ host: label(), fingerprint: `SHA256:${'B'.repeat(43)}`, remember: true }] })).rejects.toThrow(
      /CHANGED/,
    );
  });

  it('asks for a key’s passphrase, says when it is wrong, and logs in with the right one', { timeout: 30_000 }, async () => {
    await writeFile(join(userHome, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`);
    execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', 'open sesame', '-f', join(userHome, 'deft_key')], { stdio: 'ignore' });
    const b = browser();
    const keyFile = join(userHome, 'deft_key');
    expect(await b.connectRemoteHost({ host: 'box' })).toEqual({ status: 'passphrase', key: keyFile, wrong: false });
    expect(await b.connectRemoteHost({ host: 'box', passphrases: { [keyFile]: 'nope' } })).toEqual({ status: 'passphrase', key: keyFile, wrong: true });
    expect((await b.connectRemoteHost({ host: 'box', passphrases: { [keyFile]: 'open sesame' } })).status).toBe('connected');
    await b.closeAll();
  });

  it('lists folders only, leaves out hostile names, caps a huge folder, survives a link loop, and opens the folder', { timeout: 60_000 }, async () => {
    await writeFile(join(userHome, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`);
    for (const name of ['src', 'a\nb', '\u001b[31mred', '.hidden', '...']) await mkdir(join(remoteDir, name));
    await writeFile(join(remoteDir, 'file.txt'), 'x');
    await symlink('loop', join(remoteDir, 'loop'));
    const b = browser();
    const connected = await b.connectRemoteHost({ host: 'box' });
    if (connected.status !== 'connected') throw new Error(`not connected: ${connected.status}`);
    const id = connected.connection;
    const listing = await b.listRemoteFolder({ connection: id, path: `${remoteDir}/src/..` });
    expect(listing).toMatchObject({ path: remoteDir, folders: ['loop', 'src', '...', '.hidden'], more: false });
    expect(listing.files).toBe(3);
    await expect(b.listRemoteFolder({ connection: id, path: join(remoteDir, 'loop') })).rejects.toThrow();
    // A connection id the host never gave out reaches nothing (no local fallback).
    await expect(b.listRemoteFolder({ connection: 'rc-0000000000000000', path: '/' })).rejects.toThrow(/connect to the host again/);

    const big = join(remoteDir, 'src');
    for (let i = 0; i <= MAX_LISTED_FOLDERS + 4; i++) await mkdir(join(big, `d${i}`));
    const capped = await b.listRemoteFolder({ connection: id, path: big });
    expect(capped.folders).toHaveLength(MAX_LISTED_FOLDERS);
    expect(capped.more).toBe(true);

    expect(await b.openRemoteWorkspace({ connection: id, path: remoteDir })).toEqual({ opened: 'here' });
    expect(opened.at(-1)).toMatchObject({ workspace: remoteDir, id: `ssh://${sshd.username}@box:${sshd.port}${remoteDir}` });
    // The connection is the workspace's now: the dialog's id no longer reaches it.
    await expect(b.listRemoteFolder({ connection: id, path: '/' })).rejects.toThrow(/connect to the host again/);
    expect(await readRecentRemotes(deftHome)).toEqual([{ host: 'box', path: remoteDir, label: `box:${remoteDir}` }]);
    // The read itself stops at its cap (a server that pages entries without end is not read to the end).
    const env = opened.at(-1)!.environment;
    const some = await env.readdirCapped(big, 10);
    expect(some.entries).toHaveLength(10);
    expect(some.more).toBe(true);
    const all = await env.readdirCapped(remoteDir, 100);
    expect(all.more).toBe(false);
    expect(all.entries.map((e) => e.name).sort()).toEqual(['...', '.hidden', 'a\nb', 'file.txt', 'loop', 'src', '\u001b[31mred'].sort());
  });

  it('drops recent entries that are not a host and a one-line absolute path', async () => {
    await writeFile(
      join(deftHome, 'remote-recent.json'),
      JSON.stringify({
        folders: [
          { host: 'box', path: '/srv/app' },
          { host: '-oProxyCommand=touch /tmp/x', path: '/srv' },
          { host: 'box', path: 'relative' },
          { host: 'box', path: '/a\nb' },
          { host: 'box', path: '/srv', extra: 1 },
          'box:/srv',
        ],
      }),
    );
    expect(await readRecentRemotes(deftHome)).toEqual([{ host: 'box', path: '/srv/app', label: 'box:/srv/app' }]);
  });

  it('stops a connect that hangs (a server that never answers), and a stop after it ended does nothing', { timeout: 30_000 }, async () => {
    // A port that takes the TCP connection and never says a word: ssh2 would wait out its 20 s handshake timeout.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    await appendFile(join(userHome, '.ssh', 'config'), `\nHost slow\n  HostName 127.0.0.1\n  Port ${port}\n  User me\n  IdentityFile ~/deft_key\n`);
    try {
      const b = browser();
      const attempt = 'ra-00000000000000f1';
      const started = Date.now();
      const connecting = b.connectRemoteHost({ host: 'slow', attempt });
      const failed = connecting.then(
        () => null,
        (error: Error) => error,
      );
      await new Promise((r) => setTimeout(r, 300));
      await b.cancelRemoteConnect({ attempt });
      const error = await failed;
      expect(error?.message).toBe(`Connecting to me@127.0.0.1:${port} was stopped.`);
      expect(Date.now() - started).toBeLessThan(5_000);
      // The attempt is forgotten: stopping it again is nothing, and its id can be used again.
      await b.cancelRemoteConnect({ attempt });
      await writeFile(join(userHome, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}\n`);
      expect((await b.connectRemoteHost({ host: 'box', attempt })).status).toBe('connected');
      await b.closeAll();
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
