import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { workspaceSessionsDir } from '#infra/sessions/store';
import type { DeftEvent, RemoteConnection } from '#protocol';
import { waitFor } from '#test-support/wait';
import { createNodeCore } from '../compose';
import { cliHost } from '../hosts';
import { runCliProcess } from '#test-support/cli-process';
import { type CliIo, runCli } from './cli';
import { openRemoteForCli, remoteCapabilities } from '../remote-folder';
import { defaultCapabilities } from '../../agent/capabilities';

// Issue 29: `deft run --remote` — the workspace on another machine (a real OpenSSH server on loopback, a folder the
// local side does not otherwise know), sessions and settings on this one.

let sshd: TestSshd;
let server: MockModelServer;
let home: string;
let userHome: string;
let cwd: string;
let remoteDir: string;

beforeAll(async () => {
  const bin = await tempDir('deft-remote-bin-');
  await symlink(ripgrepPath(), join(bin, 'rg'));
  const started = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin` });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  server = new MockModelServer();
  await server.start();
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
});

beforeEach(async () => {
  home = await tempDir('deft-remote-home-');
  userHome = await tempDir('deft-remote-user-');
  cwd = await tempDir('deft-remote-cwd-');
  remoteDir = await tempDir('deft-remote-ws-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
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

const run = (...args: string[]) => cli('run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'accept-edits', ...args);
const target = () => `${sshd.username}@127.0.0.1:${sshd.port}:${remoteDir}`;

describe('deft run --remote', () => {
  it('edits a file of the remote folder, leaves nothing in the local folder, and --continue / --session reconnect', { timeout: 120_000 }, async () => {
    await writeFile(join(remoteDir, 'notes.txt'), 'colour: red\n');
    server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'blue' })),
      textReply('Changed it.'),
    );
    const first = await run('--remote', target(), 'make it blue');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('Changed it.\n');
    const toolResults = server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(toolResults[0]).toContain('colour: red');
    expect(toolResults[1]).not.toMatch(/error|not /i);
    expect(await readFile(join(remoteDir, 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    expect(await readdir(cwd)).toEqual([]);
    // The model was told the remote folder's path, and the edit's result came from there.
    expect(JSON.stringify(server.requests[0]!.body)).toContain(remoteDir);

    // The session is kept here, under the remote folder's ssh:// key (never a local folder's of that path).
    const id = `ssh://${sshd.username}@127.0.0.1:${sshd.port}${remoteDir}`;
    const [sessionId] = await readdir(workspaceSessionsDir(home, id));
    expect(sessionId).toBeTruthy();
    expect(await readdir(workspaceSessionsDir(home, remoteDir)).catch(() => [])).toEqual([]);
    const meta = JSON.parse(await readFile(join(workspaceSessionsDir(home, id), sessionId!, 'meta.json'), 'utf8')) as { workspace: string };
    expect(meta.workspace).toBe(id);

    server.enqueue(toolStep(callChunk('Write', { path: 'second.txt', content: 'two\n' })), textReply('Wrote it.'));
    const again = await run('--remote', target(), '--continue', 'write another');
    expect(again.code).toBe(0);
    expect(await readFile(join(remoteDir, 'second.txt'), 'utf8')).toBe('two\n');
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('make it blue');

    // --session alone: the session says where it ran, so it reconnects there.
    server.enqueue(toolStep(callChunk('Write', { path: 'third.txt', content: 'three\n' })), textReply('Third.'));
    const resumed = await run('--session', sessionId!, 'one more');
    expect(resumed.stderr).not.toMatch(/error/i);
    expect(resumed.code).toBe(0);
    expect(await readFile(join(remoteDir, 'third.txt'), 'utf8')).toBe('three\n');
    expect(await readdir(cwd)).toEqual([]);

    // --fork alone: the fork runs where its session ran, with the conversation up to prompt 1 only.
    server.enqueue(textReply('Forked.'));
    const forked = await run('--fork', sessionId!, '--at', '1', 'from the first');
    expect(forked.code).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain('make it blue');
    expect(sent).not.toContain('write another');
    expect(sent).toContain(remoteDir);
    // The remote folder has checkpoints (their store on that machine): a fork restores its files there, as they were
    // at the end of prompt 1.
    server.enqueue(textReply('Restored.'));
    const restored = await run('--fork', sessionId!, '--at', '1', '--fork-files', 'restore', 'x');
    expect(restored.code, restored.stderr).toBe(0);
    expect(await readFile(join(remoteDir, 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    expect(existsSync(join(remoteDir, 'second.txt'))).toBe(false);
    expect(existsSync(join(remoteDir, 'third.txt'))).toBe(false);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('refuses an unknown host with its fingerprint and the line to add (exit 5), before any model call', async () => {
    await writeFile(join(userHome, '.ssh', 'known_hosts'), '');
    const before = server.requests.length;
    const result = await run('--remote', target(), 'hello');
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/not a known host: its key fingerprint is SHA256:[A-Za-z0-9+/]+/);
    expect(result.stderr).toContain(`[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}`);
    expect(server.requests.length).toBe(before);
  });

  it('does the same as a process of its own (node loads the SSH modules as ES modules there)', { timeout: 60_000 }, async () => {
    await writeFile(join(userHome, '.ssh', 'known_hosts'), '');
    const result = await runCliProcess(['run', '--base-url', server.baseUrl, '--model', 'm', '--remote', target(), 'hello'], {
      cwd,
      env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    });
    expect(result.stderr).toContain(`[127.0.0.1]:${sshd.port} ${sshd.hostKeyLine}`);
    expect(result.code).toBe(5);
  });

  it('says clearly what is wrong with a bad --remote argument (exit 2) or a missing folder (exit 5)', async () => {
    const relative = await run('--remote', `127.0.0.1:${sshd.port}:relative/dir`, 'hello');
    expect(relative.code).toBe(2);
    expect(relative.stderr).toMatch(/absolute path/);
    const both = await run('--remote', target(), '--workspace', cwd, 'hello');
    expect(both.code).toBe(2);
    const missing = await run('--remote', `${target()}/nope`, 'hello');
    expect(missing.code).toBe(5);
    expect(missing.stderr).toMatch(/no folder .*\/nope on /);
  });
});

describe('a remote workspace in the core', () => {
  it('reports where it is in getWorkspace and emits the connection state when the link drops and comes back', { timeout: 60_000 }, async () => {
    const remote = await openRemoteForCli(
      { host: '127.0.0.1', port: sshd.port, user: sshd.username, path: remoteDir },
      { HOME: userHome, USER: sshd.username },
    );
    const core = createNodeCore({
      workspace: remote.workspace,
      environment: remote.environment,
      workspaceId: remote.id,
      host: cliHost(() => {}),
      env: { DEFT_HOME: home },
      capabilities: remoteCapabilities(defaultCapabilities),
    });
    const seen: RemoteConnection[] = [];
    core.onEvent((event: DeftEvent) => {
      if (event.type === 'workspace.connection') seen.push(event.remote);
    });
    try {
      const info = await core.handlers.getWorkspace({});
      expect(info.path).toBe(remoteDir);
      expect(info.remote).toEqual({ label: `${sshd.username}@127.0.0.1:${sshd.port}`, state: 'connected' });
      // The sandbox is bubblewrap there (installed on the test's "remote"), and the window says what differs.
      expect(info.sandbox).toMatchObject({ enabled: true, kind: 'bubblewrap', note: expect.stringContaining('network is ') });
      await sshd.killConnections();
      await waitFor(() => seen.some((c) => c.state === 'connected'), 20_000);
      expect(seen.map((c) => c.state)).toEqual(['reconnecting', 'connected']);
      // A drop while nothing is in flight closes the link; one during a read (the skills' first scan) resets it.
      expect(seen[0]!.detail).toMatch(/was lost|failed: read ECONNRESET/);
      expect((await core.handlers.getWorkspace({})).remote?.state).toBe('connected');
    } finally {
      await core.close();
      await remote.environment.close();
    }
  });
});
