import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSandbox } from '#contract/sandbox';
import { tempDir } from '#test-support/harness';
import { describeSandboxed, runPlan } from '#test-support/sandbox';
import { waitFor } from '#test-support/wait';
import { blockedWrites } from './blocked';
import { filesystemPolicy } from './filesystem-policy';
import { Sandbox } from './sandbox';

// Other processes' unix sockets (finding 10): one that vanishes while a command starts must not make the
// sandbox fail, and one created after a long-running command started must stay out of its reach. /var/tmp
// stands for a folder outside /tmp and /run (which are covered whole).

let root: string;
let sockets: string;
/** Socket folders of finished tests, removed when the file ends (see afterAll). */
const spent: string[] = [];
let workspace: string;
let session: SessionSandbox;
const servers: Server[] = [];

async function listen(path: string): Promise<Server> {
  const server = createServer((socket) => socket.end('reached\n'));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  servers.push(server);
  return server;
}

/** A script that tries to connect to `path` every 50 ms for `seconds`, printing "reached" if it ever can. */
const poll = (path: string, seconds: number) =>
  `node -e 'const net=require("net");const end=Date.now()+${seconds * 1000};(function t(){const s=net.connect(${JSON.stringify(path)});s.on("data",d=>{process.stdout.write(String(d));process.exit(0)});s.on("error",()=>{if(Date.now()<end)setTimeout(t,50);else{console.log("never reached");process.exit(0)}})})()'`;

beforeEach(async () => {
  root = await tempDir('deft-sockets-');
  sockets = await mkdtemp('/var/tmp/deft-sockets-');
  workspace = join(root, 'ws');
  await mkdir(workspace);
  await writeFile(join(sockets, 'notes.txt'), 'a file beside the sockets\n');
  const sandbox = new Sandbox({
    workspace,
    home: join(root, 'home', '.deft'),
    userHome: join(root, 'home'),
    headless: true,
    baseEnv: { PATH: process.env.PATH, HOME: join(root, 'home') },
  });
  session = sandbox.forSession(`sockets-${Math.random().toString(36).slice(2)}`, async () => ({ allowed: false, reason: 'no network here' }));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  await rm(root, { recursive: true, force: true });
  spent.push(sockets);
});
// Every sandboxed command on this machine (other test files running meanwhile) covers a folder that holds a
// listening socket; one that vanishes between its plan and its start makes bubblewrap fail. The servers are closed
// at once, and their folders removed only once no plan can still name them.
afterAll(async () => {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await Promise.all(spent.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('a failure of bubblewrap itself', () => {
  it('is not reported as a write the command made', () => {
    const policy = filesystemPolicy({ workspace: '/w', deftHome: '/h/.deft', userHome: '/h', tmpDir: '/t', allowWrite: [], denyWrite: [], denyRead: [] });
    expect(blockedWrites("bwrap: Can't create file at /run/gone.sock: Read-only file system\n", policy, '/w')).toEqual([]);
    expect(blockedWrites('bash: line 1: /etc/x: Read-only file system\n', policy, '/w')).toHaveLength(1);
  });
});

describeSandboxed('unix sockets of other processes', () => {
  it('a socket that vanishes between planning and starting does not make the sandbox fail', async () => {
    const path = join(sockets, 'daemon.sock');
    const server = await listen(path);
    const plan = await session.plan({ argv: ['/bin/sh', '-c', `cat ${join(sockets, 'notes.txt')}; echo ran`], cwd: workspace, label: 'ls' });
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(path, { force: true });
    const result = await runPlan(plan);
    const blocked = plan.blocked(result.output);
    plan.release();
    expect(result.output).toBe('a file beside the sockets\nran\n');
    expect(result.code).toBe(0);
    expect(blocked).toEqual([]);
  });

  it('a socket that exists when the command starts is out of reach, and the files beside it are still readable', async () => {
    const path = join(sockets, 'daemon.sock');
    await listen(path);
    const plan = await session.plan({ argv: ['/bin/sh', '-c', `${poll(path, 0.3)}; cat ${join(sockets, 'notes.txt')}`], cwd: workspace, label: 'poll' });
    const result = await runPlan(plan);
    plan.release();
    expect(result.output).toBe('never reached\na file beside the sockets\n');
  });

  it('sockets created after a long-running command started stay out of its reach (beside an old one, and in /tmp)', async () => {
    await listen(join(sockets, 'old.sock'));
    const late = join(sockets, 'late.sock');
    const lateTmp = join(root, 'later', 'agent.sock');
    const plan = await session.plan({ argv: ['/bin/sh', '-c', `${poll(late, 4)} & ${poll(lateTmp, 4)} & echo started; wait`], cwd: workspace, label: 'poll' });
    const child = spawn(plan.file, plan.args, { env: plan.env, cwd: plan.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(() => output.includes('started'), 20_000);
    await listen(late);
    await mkdir(join(root, 'later'));
    await listen(lateTmp);
    await new Promise((resolve) => child.on('close', resolve));
    plan.release();
    expect(output.split('\n').filter((line) => line === 'reached')).toEqual([]);
    expect(output.match(/never reached/g)).toHaveLength(2);
    expect(await readFile(join(sockets, 'notes.txt'), 'utf8')).toContain('beside');
  }, 40_000);
});
