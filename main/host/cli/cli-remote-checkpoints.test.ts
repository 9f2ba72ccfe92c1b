import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { type CliIo, runCli } from './cli';

// Issue 29: checkpoints and rewind on a remote folder. The sshd runs in a mount namespace of its own, where the remote
// folder (`there`) shows at `path` and the user's home is another folder (`remoteHome`): the store it keeps under
// ~/.deft/checkpoints on the remote machine is found in `remoteHome`, never in this machine's home.

let sshd: TestSshd;
let noGit: TestSshd;
let server: MockModelServer;
let there: string;
let path: string;
let remoteHome: string;
let home: string;
let userHome: string;
let cwd: string;
const userHomeThere = userInfo().homedir;

beforeAll(async () => {
  there = await tempDir('deft-remote-ckpt-there-');
  path = await tempDir('deft-remote-ckpt-path-');
  remoteHome = await tempDir('deft-remote-ckpt-rhome-');
  const started = await startSshd({
    binds: [
      { from: there, to: path },
      { from: remoteHome, to: userHomeThere },
    ],
  });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  // A machine without git: every program of /usr/bin but git on its PATH.
  const bin = await tempDir('deft-remote-ckpt-bin-');
  for (const name of await readdir('/usr/bin')) if (!name.startsWith('git')) await symlink(join('/usr/bin', name), join(bin, name)).catch(() => {});
  const second = await startSshd({ path: bin, binds: [{ from: there, to: path }] });
  if (!second) throw new Error('OpenSSH (openssh-server) is not installed');
  noGit = second;
  // One user key for both servers.
  await writeFile(join(noGit.dir, 'authorized_keys'), await readFile(join(sshd.dir, 'user_key.pub')));
  server = new MockModelServer();
  await server.start();
}, 60_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
  await noGit?.stop();
});

beforeEach(async () => {
  home = await tempDir('deft-remote-ckpt-home-');
  userHome = await tempDir('deft-remote-ckpt-user-');
  cwd = await tempDir('deft-remote-ckpt-cwd-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), `${await readFile(sshd.knownHosts, 'utf8')}${await readFile(noGit.knownHosts, 'utf8')}`);
  for (const dir of [there, path]) for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
  await rm(join(remoteHome, '.deft'), { recursive: true, force: true });
});

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const target = (on: TestSshd = sshd) => `${on.username}@127.0.0.1:${on.port}:${path}`;
const run = (prompt: string, on?: TestSshd) =>
  cli('run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target(on), '--continue', prompt);

describe('deft run --remote: checkpoints and rewind', () => {
  it('a turn’s edit and command are checkpointed on the remote machine and rewound there; secrets are not stored', { timeout: 90_000 }, async () => {
    await writeFile(join(there, 'notes.txt'), 'red\n');
    await writeFile(join(there, '.env'), 'TOKEN=remote-secret-value\n');
    // This machine's folder of the same path: never looked at, never changed.
    await writeFile(join(path, 'notes.txt'), 'local\n');

    server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'blue' })),
      toolStep(callChunk('Bash', { command: 'echo made > made.txt', description: 'make a file' })),
      textReply('Done.'),
    );
    const first = await run('paint it blue');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('checkpoint could not be saved');
    expect(await readFile(join(there, 'notes.txt'), 'utf8')).toBe('blue\n');
    expect(await readFile(join(there, 'made.txt'), 'utf8')).toBe('made\n');

    // The store: on the remote machine, under Deft's folder there; none here.
    const stores = await readdir(join(remoteHome, '.deft', 'checkpoints'));
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatch(/\.git$/);
    expect(existsSync(join(userHomeThere, '.deft', 'checkpoints', stores[0]!))).toBe(false);
    expect(existsSync(join(home, 'checkpoints', stores[0]!))).toBe(false);

    const listed = await cli('checkpoints', '--remote', target(), '--continue', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const json = JSON.parse(listed.stdout) as { status: { available: boolean }; prompts: Array<{ index: number; text: string; changedFiles: number }> };
    expect(json.status.available).toBe(true);
    expect(json.prompts.filter((p) => p.index > 0).map((p) => [p.index, p.text, p.changedFiles])).toEqual([[1, 'paint it blue', 2]]);

    // The secret was never stored: no blob of the store holds it (the remote's git lists every object).
    const storeDir = join(remoteHome, '.deft', 'checkpoints', stores[0]!);
    const { execFileSync } = await import('node:child_process');
    const objects = execFileSync('git', ['--git-dir', storeDir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 1 << 24 }).toString('latin1');
    expect(objects).toContain('red\n');
    expect(objects).not.toContain('remote-secret-value');

    const rewound = await cli('rewind', '--remote', target(), '--continue', '--to', '1', '--scope', 'code');
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain('1 restored, 1 removed');
    expect(await readFile(join(there, 'notes.txt'), 'utf8')).toBe('red\n');
    expect(existsSync(join(there, 'made.txt'))).toBe(false);
    // The secret is left as it is (it was never in a checkpoint), and the local folder is untouched.
    expect(await readFile(join(there, '.env'), 'utf8')).toBe('TOKEN=remote-secret-value\n');
    expect(await readdir(path)).toEqual(['notes.txt']);
    expect(await readFile(join(path, 'notes.txt'), 'utf8')).toBe('local\n');

    // Undo brings the turn's changes back, there.
    const undone = await cli('rewind', '--remote', target(), '--continue', '--undo');
    expect(undone.code, undone.stderr).toBe(0);
    expect(await readFile(join(there, 'notes.txt'), 'utf8')).toBe('blue\n');
    expect(await readFile(join(there, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('a remote machine without git: checkpoints are unavailable, with the reason, and the turn runs', { timeout: 60_000 }, async () => {
    server.enqueue(toolStep(callChunk('Write', { path: 'new.txt', content: 'x\n' })), textReply('Wrote it.'));
    const first = await run('write', noGit);
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(join(there, 'new.txt'), 'utf8')).toBe('x\n');
    const listed = await cli('checkpoints', '--remote', target(noGit), '--continue');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`checkpoints unavailable: Checkpoints need git on ${noGit.username}@127.0.0.1:${noGit.port}, and git was not found there.`);
  });
});
