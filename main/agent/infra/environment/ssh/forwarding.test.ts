import { statSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { SshEnvironment } from './ssh-environment';

// Issue 29: the forwarding a remote sandbox's network rests on (sandbox/remote-network.ts), against a real sshd — the
// socket there made 0600 and served here, connections made by the sshd there, and both gone with the connection.

const servers: TestSshd[] = [];
const open = async (config?: readonly string[]) => {
  const sshd = await startSshd(config ? { config } : {});
  if (!sshd) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  servers.push(sshd);
  const target = { host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey, knownHostsFiles: [sshd.knownHosts] };
  return SshEnvironment.connect(target, undefined, { forMs: 0, delaysMs: [0] });
};
let echo: Server;
let echoPort = 0;
beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((done) => echo.close(done));
  for (const sshd of servers) await sshd.stop();
});

const roundTrip = (stream: Duplex | Socket, text: string) =>
  new Promise<string>((resolve, reject) => {
    stream.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    stream.once('error', reject);
    stream.write(text);
  });

describe('SSH forwarding for the remote sandbox network', () => {
  it('a socket there (0600) whose connections come here; a connection made there; both end with the link', { timeout: 30_000 }, async () => {
    const ssh = await open();
    const path = join(await tempDir('deft-fwd-'), 'proxy.sock');
    const relay = await ssh.listenThere(path, (stream) => stream.pipe(stream));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const client = connect(path);
    expect(await roundTrip(client, 'through the relay')).toBe('through the relay');
    const out = await ssh.connectThere('127.0.0.1', echoPort);
    expect(await roundTrip(out, 'from there')).toBe('from there');
    expect(relay.alive).toBe(true);
    const closed = new Promise((done) => client.once('close', done));
    ssh.dropConnection();
    await closed;
    await expect.poll(() => relay.alive).toBe(false);
    // The socket leads nowhere now: a command still trying gets a refusal at once, not a hang.
    const late = connect(path);
    await expect(new Promise((resolve, reject) => late.once('connect', resolve).once('error', reject))).rejects.toThrow(/ECONNREFUSED|ENOENT/);
    await ssh.close();
  });

  it('a server that refuses forwarding says so (EACCES), and connects nowhere', { timeout: 30_000 }, async () => {
    const ssh = await open(['AllowStreamLocalForwarding no', 'AllowTcpForwarding no']);
    const path = join(await tempDir('deft-fwd-'), 'proxy.sock');
    await expect(ssh.listenThere(path, () => {})).rejects.toMatchObject({ code: 'EACCES' });
    await expect(ssh.connectThere('127.0.0.1', echoPort)).rejects.toThrow(/could not connect/);
    await ssh.close();
  });

  it('a server that makes no connections (AllowTcpForwarding no) is told from a target that refuses (EACCES, whatever the port)', {
    timeout: 30_000,
  }, async () => {
    const ssh = await open(['AllowTcpForwarding no']);
    await expect(ssh.connectThere('127.0.0.1', 0)).rejects.toMatchObject({ code: 'EACCES' });
    await ssh.close();
    const allowing = await open();
    const refused = await allowing.connectThere('127.0.0.1', 0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as { code?: string }).code).not.toBe('EACCES');
    await allowing.close();
  });
});
