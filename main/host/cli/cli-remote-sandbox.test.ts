import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { tempDir } from '#test-support/harness';
import { remoteCliRig } from '#test-support/remote-cli';

// Issue 29: the OS sandbox on a remote workspace — bubblewrap there, with this machine's policy planned from facts
// read there. The remote sshd runs in a mount namespace of its own where the user's home is another folder
// (`remoteHome`), so what a command sees of ~/.ssh is the remote's, and where `path` shows `there`. The same server
// answers on a second port as a machine without bwrap on its PATH.

// `buildbox.deft-test` is a name only the remote machine resolves (its /etc/hosts): to its loopback, where the test's web server is.
const rig = remoteCliRig('deft-remote-sb', { ripgrep: true, variant: { drop: (name) => name === 'bwrap' }, hosts: ['127.0.0.1 buildbox.deft-test'] });
let ws: string;
let outside: string;

beforeAll(async () => {
  await mkdir(join(rig.remoteHome, '.ssh'), { recursive: true, mode: 0o700 });
  await writeFile(join(rig.remoteHome, '.ssh', 'id_remote_secret'), 'REMOTE-PRIVATE-KEY\n', { mode: 0o600 });
  // A folder whose path holds another folder on the remote, with a link into .git there only.
  execFileSync('git', ['init', '-q', rig.there]);
  execFileSync('git', ['init', '-q', rig.path]);
  await symlink('.git', join(rig.there, 'g'));
});

beforeEach(async () => {
  // A folder both machines see at the same path.
  ws = await tempDir('deft-remote-sb-ws-');
  // Outside /tmp (private in the sandbox), a folder anyone could write to here.
  outside = await mkdtemp('/var/tmp/deft-remote-sb-outside-');
  execFileSync('git', ['init', '-q', ws]);
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

const run = (prompt: string, options: { folder?: string; variant?: boolean } = {}) =>
  rig.run(prompt, { mode: 'accept-edits', folder: options.folder ?? ws, ...(options.variant ? { variant: true } : {}) });

// A script file: the permission layer's string checks cannot see what it does, so the OS sandbox is the wall.
const PROBE = [
  'echo in > inside.txt && echo WROTE-INSIDE',
  `echo out > ${'$1'}/out.txt && echo WROTE-OUTSIDE`,
  'echo "[alias] x = !touch pwned" >> .git/config && echo WROTE-GIT-CONFIG',
  'ls -A ~/.ssh 2>&1; cat ~/.ssh/* 2>/dev/null',
  'echo DONE',
].join('\n');

describe('deft run --remote: the OS sandbox is bubblewrap on the remote', () => {
  it('a command writes in the workspace, not outside it nor .git/config, and sees nothing of ~/.ssh there', { timeout: 60_000 }, async () => {
    await writeFile(join(ws, 'probe.sh'), PROBE);
    const gitConfig = await readFile(join(ws, '.git', 'config'), 'utf8');
    rig.server.enqueue(toolStep(callChunk('Bash', { command: `sh probe.sh ${outside}`, description: 'probe the sandbox' })), textReply('Done.'));
    const result = await run('probe');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/without the OS sandbox/);
    const output = result.toolResults[0]!;
    expect(output).toMatch(/DONE/);
    expect(output).toMatch(/WROTE-INSIDE/);
    expect(await readFile(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(output).not.toMatch(/WROTE-OUTSIDE/);
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
    expect(output).not.toMatch(/WROTE-GIT-CONFIG/);
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(output).not.toMatch(/id_remote_secret|REMOTE-PRIVATE-KEY/);
    // Nothing the sandbox made for its mounts is left in the workspace.
    expect(existsSync(join(ws, '.deft'))).toBe(false);
    expect(existsSync(join(ws, '.claude'))).toBe(false);
  });

  it('without bwrap on the remote, the run says on stderr that commands run without the OS sandbox', { timeout: 60_000 }, async () => {
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'echo in > inside.txt', description: 'write a file' })), textReply('Done.'));
    const result = await run('write', { variant: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/commands run without the OS sandbox \(no OS sandbox there: bubblewrap \(bwrap\) is not installed on .*127\.0\.0\.1/);
    expect(result.stderr.match(/without the OS sandbox/g)).toHaveLength(1);
    // Unsandboxed, accept-edits asks for the command, and nobody can answer headless.
    expect(result.toolResults[0]).toMatch(/needs approval/);
  });

  it('without bwrap on the remote, a trusted folder’s hook runs there unsandboxed, said once', { timeout: 60_000 }, async () => {
    await mkdir(join(ws, '.deft'));
    const hook = { type: 'command', command: `echo out > ${outside}/hook-out.txt` };
    await writeFile(join(ws, '.deft', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }));
    await rig.trust(ws, true);
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'true', description: 'nothing' })), textReply('Done.'));
    const result = await run('go', { variant: true });
    expect(result.code).toBe(0);
    expect(await readFile(join(outside, 'hook-out.txt'), 'utf8')).toBe('out\n');
    expect(result.stderr.match(/without the OS sandbox/g)).toHaveLength(1);
  });
});

describe('deft run --remote: the protected-path check resolves paths on the remote', () => {
  it('a link on the remote into .git is caught there, though this machine has no such link', { timeout: 60_000 }, async () => {
    const before = await readFile(join(rig.there, '.git', 'config'), 'utf8');
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'echo "[core]" >> g/config', description: 'append' })), textReply('Done.'));
    const result = await run('append', { folder: rig.path });
    expect(result.code).toBe(0);
    // This machine has no `g` at that path: only the remote's link makes it protected.
    expect(existsSync(join(rig.path, 'g'))).toBe(false);
    expect(result.toolResults[0]).toMatch(/"g\/config" in this command is protected: it is inside a \.git folder/);
    expect(await readFile(join(rig.there, '.git', 'config'), 'utf8')).toBe(before);
  });
});

describe("deft run --remote: a sandboxed command there reaches the network through Deft's proxy, with this machine's policy", () => {
  let web: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    web = createServer((_req, res) => {
      hits++;
      res.end('hello from the build server\n');
    });
    await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
    port = (web.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((done) => web.close(done));
  });
  beforeEach(() => {
    hits = 0;
  });
  const settings = (network: Record<string, unknown>) => writeFile(join(rig.home, 'settings.json'), JSON.stringify({ sandbox: { network } }));
  const fetch = (url: string) => `curl -sS --max-time 15 --noproxy '' -x "$HTTP_PROXY" ${url}; echo " exit=$?"`;

  it('a host that is not allowed is refused by the proxy, naming the rule that would allow it (nobody to ask headless)', { timeout: 60_000 }, async () => {
    await settings({ allowedDomains: [] });
    // Also around the proxy: straight to the port (its own network namespace), and to the relay socket without the token.
    const around = [
      fetch(`http://127.0.0.1:${port}/`),
      `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/; echo " direct=$?"`,
      `for s in /tmp/deft-sandbox-*/net/*.sock; do curl -sS --max-time 5 --unix-socket "$s" -o /dev/null -w 'socket=%{http_code}\\n' http://127.0.0.1:${port}/; done`,
    ].join('\n');
    await writeFile(join(ws, 'around.sh'), `${around}\n`);
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'sh around.sh', description: 'fetch' })), textReply('Done.'));
    const result = await run('fetch');
    expect(result.code).toBe(0);
    const output = result.toolResults[0]!;
    expect(output).not.toMatch(/hello from the build server/);
    expect(output).toContain(`connection to 127.0.0.1:${port}`);
    expect(output).toContain(`"127.0.0.1:${port}" to "sandbox.network.allowedDomains"`);
    expect(output).toMatch(/direct=7/);
    expect(output).toMatch(/socket=407/);
    expect(hits).toBe(0);
  });

  it('an allowed name is resolved and reached from the remote machine (a name only it resolves), through a 0600 socket', { timeout: 60_000 }, async () => {
    await settings({ allowedDomains: [`buildbox.deft-test:${port}`], allowAddressClasses: ['loopback'] });
    // A script: the glob is the command's business, not the permission layer's.
    await writeFile(join(ws, 'net.sh'), `${fetch(`http://buildbox.deft-test:${port}/`)}\nstat -c 'mode=%a' /tmp/deft-sandbox-*/net/*.sock\n`);
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'sh net.sh', description: 'fetch' })), textReply('Done.'));
    const result = await run('fetch');
    expect(result.code).toBe(0);
    const output = result.toolResults[0]!;
    expect(output).toMatch(/hello from the build server/);
    expect(output).toMatch(/mode=600/);
    expect(hits).toBe(1);
  });

  it('an allowed name that resolves there to loopback is refused without the address class; https goes through CONNECT', { timeout: 60_000 }, async () => {
    await settings({ allowedDomains: [`buildbox.deft-test:${port}`] });
    const command = `${fetch(`http://buildbox.deft-test:${port}/`)}; ${fetch(`https://buildbox.deft-test:${port}/`)}`;
    rig.server.enqueue(toolStep(callChunk('Bash', { command, description: 'fetch' })), textReply('Done.'));
    const result = await run('fetch');
    const output = result.toolResults[0]!;
    expect(output).not.toMatch(/hello from the build server/);
    expect(output).toMatch(/buildbox\.deft-test resolves to 127\.0\.0\.1/);
    expect(hits).toBe(0);
  });
});
