import { existsSync } from 'node:fs';
import { mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { type CliIo, runCli } from './cli';

// Issue 29: on a remote folder its own hooks run on the remote machine (once that folder is trusted), the user's own
// on this one. The sshd runs in a mount namespace of its own: a hook proves where it ran by the mount namespace it
// saw (`/proc/self/ns/mnt`), and the remote folder (`there`) shows at `path` only there.

let sshd: TestSshd;
let server: MockModelServer;
let there: string;
let path: string;
let home: string;
let userHome: string;
let cwd: string;
let marks: string;
let hereNs: string;

beforeAll(async () => {
  there = await tempDir('deft-remote-hooks-there-');
  path = await tempDir('deft-remote-hooks-path-');
  const started = await startSshd({ binds: [{ from: there, to: path }] });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  server = new MockModelServer();
  await server.start();
  hereNs = await readlink('/proc/self/ns/mnt');
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
});

beforeEach(async () => {
  home = await tempDir('deft-remote-hooks-home-');
  userHome = await tempDir('deft-remote-hooks-user-');
  cwd = await tempDir('deft-remote-hooks-cwd-');
  marks = await tempDir('deft-remote-hooks-marks-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  for (const dir of [there, path]) {
    for (const name of ['.deft', 'hook-ns.txt', 'hook-input.json']) await rm(join(dir, name), { recursive: true, force: true });
    await mkdir(join(dir, '.deft'));
  }
  // The remote repository's hook: where it ran, and what it was told on stdin, written into the folder it ran in.
  const workspaceHook = {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'readlink /proc/self/ns/mnt > hook-ns.txt; cat > hook-input.json' }] }],
  };
  await writeFile(join(there, '.deft', 'settings.json'), JSON.stringify({ hooks: workspaceHook }));
  // This machine's folder at the same path has a hook of its own: it must never run for the remote session.
  const localHook = { PreToolUse: [{ hooks: [{ type: 'command', command: `touch ${join(marks, 'local-folder-hook')}` }] }] };
  await writeFile(join(path, '.deft', 'settings.json'), JSON.stringify({ hooks: localHook }));
});

async function run(prompt: string) {
  let stderr = '';
  const io: CliIo = {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const target = `${sshd.username}@127.0.0.1:${sshd.port}:${path}`;
  server.enqueue(toolStep(callChunk('Bash', { command: 'true', description: 'nothing' })), textReply('Done.'));
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target, prompt], io);
  return { code, stderr };
}

const trustRemote = () =>
  writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [`ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`]: { trusted: true } } }));

describe('deft run --remote: hooks', () => {
  it('an untrusted remote folder’s hooks do not run, anywhere', { timeout: 60_000 }, async () => {
    // Trusting this machine's folder of the same path trusts nothing there.
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [path]: { trusted: true } } }));
    const result = await run('go');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('not trusted, so its own hooks do not run');
    expect(existsSync(join(there, 'hook-ns.txt'))).toBe(false);
    expect(existsSync(join(path, 'hook-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-folder-hook'))).toBe(false);
  });

  it('a trusted remote folder’s hook runs on the remote machine with the event on stdin; the user’s own runs here', { timeout: 60_000 }, async () => {
    await trustRemote();
    const userHook = { PreToolUse: [{ hooks: [{ type: 'command', command: `readlink /proc/self/ns/mnt > ${join(marks, 'user-ns.txt')}` }] }] };
    await writeFile(join(home, 'settings.json'), JSON.stringify({ hooks: userHook }));
    const result = await run('go');
    expect(result.code).toBe(0);
    // The workspace's hook: in the remote folder, in the sshd's mount namespace, told the event.
    const remoteNs = (await readFile(join(there, 'hook-ns.txt'), 'utf8')).trim();
    expect(remoteNs).not.toBe(hereNs);
    expect(existsSync(join(path, 'hook-ns.txt'))).toBe(false);
    const input = JSON.parse(await readFile(join(there, 'hook-input.json'), 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', cwd: path });
    // The user's own hook: on this machine.
    expect((await readFile(join(marks, 'user-ns.txt'), 'utf8')).trim()).toBe(hereNs);
    // This machine's folder of the same path is not the workspace: its hook never ran.
    expect(existsSync(join(marks, 'local-folder-hook'))).toBe(false);
  });
});
