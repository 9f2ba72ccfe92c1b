import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { type CliIo, runCli } from './cli';

// Issue 29: the OS sandbox on a remote workspace — bubblewrap there, with this machine's policy planned from facts
// read there. The remote sshd runs in a mount namespace of its own where the user's home is another folder (`there`),
// so what a command sees of ~/.ssh is the remote's. A second sshd has no bwrap on its PATH.

let sshd: TestSshd;
let bare: TestSshd;
let server: MockModelServer;
let remoteHome: string;
let home: string;
let userHome: string;
let cwd: string;
let ws: string;
let outside: string;
let there: string; // what the remote machine has at `linked`
let linked: string;

beforeAll(async () => {
  const bin = await tempDir('deft-remote-sb-bin-');
  await symlink(ripgrepPath(), join(bin, 'rg'));
  remoteHome = await tempDir('deft-remote-sb-rhome-');
  await mkdir(join(remoteHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(remoteHome, '.ssh', 'id_remote_secret'), 'REMOTE-PRIVATE-KEY\n', { mode: 0o600 });
  // A folder whose path holds another folder on the remote, with a link into .git there only.
  there = await tempDir('deft-remote-sb-there-');
  linked = await tempDir('deft-remote-sb-linked-');
  execFileSync('git', ['init', '-q', there]);
  execFileSync('git', ['init', '-q', linked]);
  await symlink('.git', join(there, 'g'));
  const binds = [
    { from: remoteHome, to: homedir() },
    { from: there, to: linked },
  ];
  const started = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin`, binds });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  // Every program of /usr/bin but bubblewrap (on a merged /usr, /bin is /usr/bin).
  const noBwrap = await tempDir('deft-remote-sb-nobwrap-');
  for (const name of await readdir('/usr/bin')) if (name !== 'bwrap') await symlink(join('/usr/bin', name), join(noBwrap, name));
  await symlink(ripgrepPath(), join(noBwrap, 'rg')).catch(() => {});
  bare = (await startSshd({ path: noBwrap }))!;
  server = new MockModelServer();
  await server.start();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
  await bare?.stop();
  if (outside) await rm(outside, { recursive: true, force: true });
});

beforeEach(async () => {
  home = await tempDir('deft-remote-sb-home-');
  userHome = await tempDir('deft-remote-sb-user-');
  cwd = await tempDir('deft-remote-sb-cwd-');
  ws = await tempDir('deft-remote-sb-ws-');
  // Outside /tmp (private in the sandbox), a folder anyone could write to here.
  outside = await mkdtemp('/var/tmp/deft-remote-sb-outside-');
  execFileSync('git', ['init', '-q', ws]);
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), (await readFile(sshd.knownHosts, 'utf8')) + (await readFile(bare.knownHosts, 'utf8')));
});

async function run(server_: TestSshd, prompt: string, folder = ws) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: server_.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const args = ['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'accept-edits'];
  const code = await runCli([...args, '--remote', `${server_.username}@127.0.0.1:${server_.port}:${folder}`, prompt], io);
  const toolResults = server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  return { code, stdout, stderr, toolResults };
}

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
    server.enqueue(toolStep(callChunk('Bash', { command: `sh probe.sh ${outside}`, description: 'probe the sandbox' })), textReply('Done.'));
    const result = await run(sshd, 'probe');
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
    await writeFile(join(userHome, '.ssh', 'id_ed25519'), bare.privateKey, { mode: 0o600 });
    server.enqueue(toolStep(callChunk('Bash', { command: 'echo in > inside.txt', description: 'write a file' })), textReply('Done.'));
    const result = await run(bare, 'write');
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/commands run without the OS sandbox \(no OS sandbox there: bubblewrap \(bwrap\) is not installed on .*127\.0\.0\.1/);
    expect(result.stderr.match(/without the OS sandbox/g)).toHaveLength(1);
    // Unsandboxed, accept-edits asks for the command, and nobody can answer headless.
    expect(result.toolResults[0]).toMatch(/needs approval/);
  });
});

describe('deft run --remote: the protected-path check resolves paths on the remote', () => {
  it('a link on the remote into .git is caught there, though this machine has no such link', { timeout: 60_000 }, async () => {
    const before = await readFile(join(there, '.git', 'config'), 'utf8');
    server.enqueue(toolStep(callChunk('Bash', { command: 'echo "[core]" >> g/config', description: 'append' })), textReply('Done.'));
    const result = await run(sshd, 'append', linked);
    expect(result.code).toBe(0);
    // This machine has no `g` at that path: only the remote's link makes it protected.
    expect(existsSync(join(linked, 'g'))).toBe(false);
    expect(result.toolResults[0]).toMatch(/"g\/config" in this command is protected: it is inside a \.git folder/);
    expect(await readFile(join(there, '.git', 'config'), 'utf8')).toBe(before);
  });
});
