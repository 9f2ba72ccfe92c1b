import { mkdir } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { internetOnly } from '#infra/sandbox/public-network';
import { Sandbox } from '#infra/sandbox/sandbox';
import { tempDir } from '#test-support/harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';
import { describeSandboxed } from '#test-support/sandbox';
import type { ServerConfig, ServerDefinition, ServerSource } from './config';
import { ServerConnection } from './connection';
import { type McpSandboxChoice, directLauncher, sandboxedLauncher, withoutWorkspaceSearchPaths } from './launch';
const TEST_SERVER = resolve(import.meta.dirname, '../../../../test-support/mcp-test-server.mjs');

let connection: ServerConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

async function places() {
  const root = await tempDir();
  const workspace = join(root, 'ws');
  const home = join(root, 'deft-home');
  await mkdir(join(workspace, '.git', 'hooks'), { recursive: true });
  await mkdir(home, { recursive: true });
  return { workspace, home };
}

async function start(source: ServerSource, choice: McpSandboxChoice, env: Record<string, string>, where: { workspace: string; home: string }) {
  const config: ServerConfig = { command: process.execPath, args: [TEST_SERVER], env };
  const definition: ServerDefinition = {
    name: 'repo',
    source,
    file: join(where.workspace, '.mcp.json'),
    config,
    fingerprint: 'test',
    missing: [],
    variables: [],
    written: config,
  };
  const sandbox = new Sandbox({ workspace: where.workspace, home: where.home }).forWorkspace();
  connection = new ServerConnection({
    definition,
    workspace: where.workspace,
    neutralCwd: where.home,
    launch: sandboxedLauncher(sandbox, async () => choice),
    clientVersion: 'test',
    onToolsChanged: () => {},
    onClosed: () => {},
  });
  await connection.open();
  return connection;
}

describeSandboxed('MCP stdio servers in the OS sandbox', () => {
  it("a workspace's own server runs sandboxed: not Deft's home nor .git/hooks, the workspace yes; nothing it started outlives it", async () => {
    const where = await places();
    const nap = uniqueSleep();
    const targets = [join(where.home, 'settings.json'), join(where.workspace, '.git', 'hooks', 'pre-commit'), join(where.workspace, 'out.txt')];
    const server = await start('project', 'project', { MCP_TEST_WRITE: targets.join(':'), MCP_TEST_GRANDCHILD: nap }, where);
    const said = server.stderr.lines(10);
    expect(said).toContainEqual(expect.stringMatching(new RegExp(`^write ${targets[0]}: E`)));
    expect(said).toContainEqual(expect.stringMatching(new RegExp(`^write ${targets[1]}: E`)));
    expect(said).toContain(`write ${targets[2]}: ok`);
    // Its tools work as usual.
    expect((await server.callTool('echo', { text: 'hi' }, { signal: new AbortController().signal, timeoutMs: 10_000, onProgress: () => {} })).content).toEqual([
      { type: 'text', text: 'echo: hi' },
    ]);
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1), 10_000);
    await server.close();
    connection = undefined;
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 10_000);
  });

  it('the user\'s own servers run as configured unless mcp.sandbox is "all" — still, nothing they start outlives them', async () => {
    const where = await places();
    const target = join(where.home, 'user-server.txt');
    const nap = uniqueSleep();
    expect((await start('user', 'project', { MCP_TEST_WRITE: target, MCP_TEST_GRANDCHILD: nap }, where)).stderr.lines(10)).toContain(`write ${target}: ok`);
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1), 10_000);
    await connection!.close();
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 10_000);
    expect((await start('user', 'all', { MCP_TEST_WRITE: target }, where)).stderr.lines(10)).toContainEqual(
      expect.stringMatching(new RegExp(`^write ${target}: E`)),
    );
    await connection!.close();
    expect((await start('project', 'off', { MCP_TEST_WRITE: target }, where)).stderr.lines(10)).toContain(`write ${target}: ok`);
  });
});

describeSandboxed("a sandboxed server's network (finding 14)", () => {
  it('is its own: no abstract unix socket (an X11 display) nor loopback service of the host; the proxy is its way out', async () => {
    const where = await places();
    const abstract = `deft-display-${process.pid}-${Date.now()}`;
    const display = createServer((socket) => socket.end());
    const loopback = createServer((socket) => socket.end());
    await new Promise<void>((done) => display.listen(`\0${abstract}`, done));
    await new Promise<void>((done) => loopback.listen(0, '127.0.0.1', done));
    const port = (loopback.address() as AddressInfo).port;
    try {
      const targets = [`@${abstract}`, `127.0.0.1:${port}`];
      const server = await start('project', 'project', { MCP_TEST_CONNECT: targets.join(','), MCP_TEST_SHOW_ENV: 'HTTPS_PROXY' }, where);
      await eventually(() => expect(server.stderr.lines(20).filter((line) => line.startsWith('connect '))).toHaveLength(2), 10_000);
      const said = server.stderr.lines(20);
      for (const target of targets) expect(said).toContainEqual(expect.stringMatching(new RegExp(`^connect ${target}: E[A-Z]+$`)));
      expect(said).toContainEqual(expect.stringMatching(/^env HTTPS_PROXY=http:\/\/[^@]+@127\.0\.0\.1:\d+/));
      // The same server left out of the sandbox reaches both (the premise of this test).
      await connection!.close();
      const plain = await start('project', 'off', { MCP_TEST_CONNECT: targets.join(',') }, where);
      await eventually(() => expect(plain.stderr.lines(20).filter((line) => line.startsWith('connect '))).toHaveLength(2), 10_000);
      for (const target of targets) expect(plain.stderr.lines(20)).toContain(`connect ${target}: ok`);
    } finally {
      display.close();
      loopback.close();
    }
  });

  it('may reach the internet through the proxy, not this machine or the local network', async () => {
    const verdict = (host: string) => internetOnly({ host, port: 443 }, new AbortController().signal).then((v) => v.allowed);
    for (const host of ['registry.npmjs.org', '93.184.215.14', '[2606:2800:21f:cb07:6820:80da:af6b:8b2c]']) expect(await verdict(host), host).toBe(true);
    for (const host of [
      'localhost',
      'db.localhost',
      '127.0.0.1',
      '10.0.0.2',
      '192.168.1.1',
      '169.254.169.254',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[fd00::1]',
      'printer.local',
      'metadata.google.internal',
    ])
      expect(await verdict(host), host).toBe(false);
  });
});

describeSandboxed('a sandboxed server that fails to start', () => {
  it('fails at once with its stderr, as an unsandboxed one does', async () => {
    const where = await places();
    await expect(start('project', 'project', { MCP_TEST_FAIL_START: 'cannot open database /nope.db' }, where)).rejects.toThrow('cannot open database /nope.db');
  });
});

describe("the user's own servers' search paths", () => {
  it('lose relative and empty entries and folders inside the workspace; a workspace server keeps them', async () => {
    const env = {
      PATH: '/ws/node_modules/.bin:node_modules/.bin::/usr/bin:/ws:/wsx/bin',
      PYTHONPATH: '.:/ws/lib:/opt/py',
      NODE_PATH: '/ws/node_modules',
      OTHER: '/ws/bin',
    };
    expect(withoutWorkspaceSearchPaths(env, '/ws')).toEqual({ PATH: '/usr/bin:/wsx/bin', PYTHONPATH: '/opt/py', NODE_PATH: '', OTHER: '/ws/bin' });
    const request = { argv: ['x'], cwd: '/home', workspace: '/ws', env: { PATH: '/ws/bin:/usr/bin' }, label: 'x' };
    expect((await directLauncher({ ...request, source: 'user' })).env.PATH).toBe('/usr/bin');
    expect((await directLauncher({ ...request, source: 'cli' })).env.PATH).toBe('/usr/bin');
    expect((await directLauncher({ ...request, source: 'project' })).env.PATH).toBe('/ws/bin:/usr/bin');
  });
});
