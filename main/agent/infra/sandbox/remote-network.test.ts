import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { type Server, connect, createServer } from 'node:net';
import { type Duplex, duplexPair } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Environment, RelayThere } from '#contract/environment';
import { EnvironmentError } from '#contract/environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { tempDir } from '#test-support/harness';
import { type RemoteRelay, RemoteNetwork, remoteResolver } from './remote-network';
import type { SandboxSettings } from './settings';

// Issue 29: the remote sandbox's network relay — when it is made, when not (and why), and names checked before a lookup.
// The end-to-end paths (a real sshd, curl through the relay) are in host/cli/cli-remote-sandbox.test.ts.

interface Fake {
  environment: Environment;
  listened: string[];
  relays: Array<{ alive: boolean }>;
}

/** This machine as "the remote": its exec, with forwarding that succeeds or is refused. */
function fake(options: { refuse?: boolean; forwarding?: boolean } = {}): Fake {
  const listened: string[] = [];
  const relays: Array<{ alive: boolean }> = [];
  const environment = Object.create(localEnvironment()) as Environment;
  if (options.forwarding !== false) {
    environment.listenThere = async (socketPath: string): Promise<RelayThere> => {
      listened.push(socketPath);
      if (options.refuse) throw new EnvironmentError('EACCES', 'administratively prohibited');
      const relay = { alive: true, close: () => (relay.alive = false) };
      relays.push(relay);
      return relay;
    };
    environment.connectThere = async () => {
      throw new Error('not in this test');
    };
  }
  return { environment, listened, relays };
}

describe('RemoteNetwork', () => {
  it('without forwarding on the connection, or without socat there: no relay, and why, for good', async () => {
    const dir = await tempDir('deft-rnet-');
    const none = new RemoteNetwork(fake({ forwarding: false }).environment, dir);
    expect(await none.current('/usr/bin/socat')).toMatchObject({ reason: expect.stringMatching(/cannot forward/), final: true });
    const noSocat = fake();
    const network = new RemoteNetwork(noSocat.environment, dir);
    expect(await network.current(undefined)).toMatchObject({ reason: expect.stringMatching(/socat is not installed/), final: true });
    expect(network.unavailable).toMatch(/socat/);
    expect(noSocat.listened).toEqual([]);
  });

  it('forwarding refused by sshd: no relay, said with the setting, and not asked again', async () => {
    const dir = await tempDir('deft-rnet-');
    const refused = fake({ refuse: true });
    const network = new RemoteNetwork(refused.environment, dir);
    expect(await network.current('/usr/bin/socat')).toMatchObject({ reason: expect.stringMatching(/AllowStreamLocalForwarding/), final: true });
    await network.current('/usr/bin/socat');
    expect(refused.listened).toHaveLength(1);
  });

  it('the relay socket is in a 0700 folder of its own; a dropped relay is made again, once for commands asking together', async () => {
    const dir = join(await tempDir('deft-rnet-'), 'sandbox');
    const ok = fake();
    const network = new RemoteNetwork(ok.environment, dir);
    const first = await network.current('/usr/bin/socat');
    expect(first).toMatchObject({ socketPath: expect.stringMatching(new RegExp(`^${dir}/net/proxy-[0-9a-f]+\\.sock$`)) });
    expect(statSync(join(dir, 'net')).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await network.current('/usr/bin/socat')).toBe(first);
    ok.relays[0]!.alive = false;
    const [a, b] = await Promise.all([network.current('/usr/bin/socat'), network.current('/usr/bin/socat')]);
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    expect(ok.listened).toHaveLength(2);
    expect(ok.listened[1]).not.toBe(ok.listened[0]);
    await network.close();
    expect(ok.relays[1]!.alive).toBe(false);
  });

  it('sshd there forbidding connections (AllowTcpForwarding no): no relay, said up front, for good', async () => {
    const refusing = fake();
    let probes = 0;
    refusing.environment.connectThere = async () => {
      probes++;
      throw new EnvironmentError('EACCES', 'could not connect: (SSH) Channel open failure: administratively prohibited');
    };
    const network = new RemoteNetwork(refusing.environment, await tempDir('deft-rnet-'));
    expect(await network.current('/usr/bin/socat')).toMatchObject({ reason: expect.stringMatching(/AllowTcpForwarding/), final: true });
    expect(refusing.relays[0]!.alive).toBe(false);
    await network.current('/usr/bin/socat');
    expect(probes).toBe(1);
  });

  it('sockets left by connections gone are removed there; a live one (another Deft) stays', async () => {
    const dir = join(await tempDir('deft-rnet-'), 'sandbox');
    await mkdir(join(dir, 'net'), { recursive: true, mode: 0o700 });
    const stale = join(dir, 'net', 'proxy-0000aa.sock');
    const live = join(dir, 'net', 'proxy-0000bb.sock');
    // A socket whose listener died without removing it: bound by a process that then exits.
    execFileSync(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(stale)}, () => process.exit(0))`]);
    const server = createServer();
    await new Promise<void>((done) => server.listen(live, done));
    expect(existsSync(stale)).toBe(true);
    const network = new RemoteNetwork(fake().environment, dir);
    await network.current('/usr/bin/socat');
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    await new Promise((done) => server.close(done));
    await network.close();
  });

  it('resolves names there with getent; what is not a host name is refused before anything runs', async () => {
    let ran = 0;
    const local = localEnvironment();
    const counting = Object.create(local) as Environment;
    counting.exec = (request) => {
      ran++;
      return local.exec(request);
    };
    const resolve = remoteResolver(counting);
    for (const bad of ['-s', 'a b', 'x;id', '$(id)', 'a..b', '']) await expect(resolve(bad)).rejects.toThrow(/not a host name/);
    expect(ran).toBe(0);
    expect((await resolve('localhost')).some((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
    await expect(resolve('no-such-host.invalid')).rejects.toThrow(/not found/);
  });
});

describe('the relay: decided here, dialled there', () => {
  it('a CONNECT is decided with the settings, and the connection asked of the other machine to the address checked, never made here', async () => {
    const echo: Server = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
    const port = (echo.address() as { port: number }).port;
    const dialled: Array<[string, number]> = [];
    let serve: ((stream: Duplex) => void) | undefined;
    const environment = Object.create(localEnvironment()) as Environment;
    environment.listenThere = async (_path, onConnection) => {
      serve = onConnection;
      return { alive: true, close: () => {} };
    };
    environment.connectThere = async (host, to) => {
      // The relay's probe (does sshd there make connections at all?): a port nothing listens on.
      if (to === 0) throw new Error('could not connect: Connection refused');
      dialled.push([host, to]);
      // "The other machine": this one's echo server, whichever loopback address the lookup gave first.
      const socket = connect(to, '127.0.0.1');
      await new Promise((done) => socket.once('connect', done));
      return socket;
    };
    const network = new RemoteNetwork(environment, join(await tempDir('deft-rnet-'), 'sandbox'));
    const relay = (await network.current('/usr/bin/socat')) as RemoteRelay;
    const settings = { allowedDomains: [`localhost:${port}`], allowAddressClasses: [] } as unknown as SandboxSettings;
    const asked: string[] = [];
    const { pass } = network.plan(
      relay,
      settings,
      async (target) => (asked.push(`${target.host}:${target.port}`), { allowed: false, reason: 'refused here' }),
      ['true'],
    );
    const auth = Buffer.from(`deft:${pass.token}`).toString('base64');
    const request = async (authority: string) => {
      const [here, there] = duplexPair();
      serve!(there);
      let answer = '';
      here.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      here.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`);
      await expect.poll(() => answer.includes('\r\n\r\n')).toBe(true);
      return { here, answer: () => answer };
    };
    const allowed = await request(`localhost:${port}`);
    expect(allowed.answer()).toMatch(/^HTTP\/1\.1 200/);
    allowed.here.write('ping');
    await expect.poll(() => allowed.answer().endsWith('ping')).toBe(true);
    // Resolved there (getent), checked here, and that address, not the name, handed to the other machine.
    expect(dialled).toHaveLength(1);
    expect(['127.0.0.1', '::1']).toContain(dialled[0]![0]);
    const refused = await request('10.1.2.3:80');
    expect(refused.answer()).toMatch(/^HTTP\/1\.1 403[\s\S]*refused here/);
    expect(asked).toEqual(['10.1.2.3:80']);
    expect(dialled).toHaveLength(1);
    allowed.here.destroy();
    pass.release();
    await network.close();
    await new Promise((done) => echo.close(done));
  });
});
