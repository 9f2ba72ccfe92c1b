import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { workspacePlace } from '#infra/environment/workspace-place';
import { TrustStore } from '#infra/settings/trust';
import { type CliIo, runCli } from './cli';

// Issue 29, the trust attack end to end: `deft run --remote` on a folder whose path is ALSO a local folder here —
// trusted here, with `.deft/settings.json` allowing every command. The remote sshd sees another folder mounted at that
// path (a mount namespace of its own), so the two are told apart by what a command does where.

let sshd: TestSshd;
let server: MockModelServer;
let there: string; // what the remote machine has at `path`
let path: string;
let home: string;
let userHome: string;
let cwd: string;

beforeAll(async () => {
  const bin = await tempDir('deft-remote-trust-bin-');
  await symlink(ripgrepPath(), join(bin, 'rg'));
  there = await tempDir('deft-remote-trust-there-');
  path = await tempDir('deft-remote-trust-path-');
  const started = await startSshd({ path: `${bin}:/usr/local/bin:/usr/bin:/bin`, binds: [{ from: there, to: path }] });
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
  home = await tempDir('deft-remote-trust-home-');
  userHome = await tempDir('deft-remote-trust-user-');
  cwd = await tempDir('deft-remote-trust-cwd-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  for (const dir of [there, path]) {
    await rm(join(dir, '.deft'), { recursive: true, force: true });
    await rm(join(dir, 'ran.txt'), { force: true });
    await mkdir(join(dir, '.deft'));
  }
});

async function run(prompt: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const args = [
    'run',
    '--base-url',
    server.baseUrl,
    '--model',
    'm',
    '--permission-mode',
    'accept-edits',
    // The permission layer alone: with the sandbox on there, accept-edits would run a sandboxed command unasked.
    '--sandbox',
    'off',
    '--remote',
    `${sshd.username}@127.0.0.1:${sshd.port}:${path}`,
  ];
  const code = await runCli([...args, prompt], io);
  const toolResults = server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  return { code, stdout, stderr, toolResults };
}

const bashStep = () => toolStep(callChunk('Bash', { command: 'touch ran.txt', description: 'touch a file' }));
const remoteId = () => `ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`;

describe('deft run --remote: trust and rules are the remote folder’s', () => {
  it('a trusted local folder at the same path allowing Bash(*) does not let the remote session run a command', { timeout: 60_000 }, async () => {
    await writeFile(join(path, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(*)'], defaultMode: 'yolo' } }));
    await new TrustStore(home, workspacePlace(path)).trust();
    server.enqueue(bashStep(), textReply('Done.'));
    const result = await run('touch it');
    expect(result.code).toBe(0);
    expect(result.toolResults[0]).toMatch(/needs approval .*nobody can approve it: it did not run/);
    expect(existsSync(join(there, 'ran.txt'))).toBe(false);
    expect(existsSync(join(path, 'ran.txt'))).toBe(false);
  });

  it('the remote folder’s own allow rule runs the command there once that folder (host + path) is trusted', { timeout: 60_000 }, async () => {
    await writeFile(join(there, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }));
    // Untrusted: the repository's allow rule is not used.
    server.enqueue(bashStep(), textReply('Done.'));
    const untrusted = await run('touch it');
    expect(untrusted.toolResults[0]).toMatch(/needs approval .*nobody can approve it: it did not run/);
    expect(existsSync(join(there, 'ran.txt'))).toBe(false);
    // Trusting the local path changes nothing; trusting the remote folder's key does.
    await new TrustStore(home, workspacePlace(path)).trust();
    server.enqueue(bashStep(), textReply('Done.'));
    await run('touch it');
    expect(existsSync(join(there, 'ran.txt'))).toBe(false);
    const trust = JSON.parse(await readFile(join(home, 'trust.json'), 'utf8')) as { folders: Record<string, unknown> };
    trust.folders[remoteId()] = { trusted: true };
    await writeFile(join(home, 'trust.json'), JSON.stringify(trust));
    server.enqueue(bashStep(), textReply('Done.'));
    const trusted = await run('touch it');
    expect(trusted.code).toBe(0);
    expect(trusted.toolResults[0]).not.toMatch(/ERROR/);
    expect(existsSync(join(there, 'ran.txt'))).toBe(true);
    expect(existsSync(join(path, 'ran.txt'))).toBe(false);
  });

  it('the remote folder’s deny rule holds even where the local folder’s would allow', { timeout: 60_000 }, async () => {
    await writeFile(join(there, '.deft', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(touch *)'] } }));
    await writeFile(join(path, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }));
    const trust = { folders: { [remoteId()]: { trusted: true }, [path]: { trusted: true } } };
    await writeFile(join(home, 'trust.json'), JSON.stringify(trust));
    server.enqueue(bashStep(), textReply('Done.'));
    const result = await run('touch it');
    expect(result.toolResults[0]).toMatch(/blocked by the deny rule "Bash\(touch \*\)"/);
    expect(existsSync(join(there, 'ran.txt'))).toBe(false);
  });

  it('a subfolder’s AGENTS.md is the remote folder’s, read there when the agent first touches the subfolder', { timeout: 60_000 }, async () => {
    for (const [dir, who] of [
      [there, 'REMOTE'],
      [path, 'LOCAL'],
    ] as const) {
      await rm(join(dir, 'sub'), { recursive: true, force: true });
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub', 'AGENTS.md'), `${who}-NESTED-RULE: use tabs here.\n`);
      await writeFile(join(dir, 'sub', 'file.txt'), `${who} file\n`);
    }
    server.enqueue(toolStep(callChunk('Read', { path: 'sub/file.txt' })), textReply('Read it.'));
    const result = await run('read sub/file.txt');
    expect(result.code).toBe(0);
    expect(result.toolResults[0]).toContain('REMOTE file');
    const told = JSON.stringify(server.requests.at(-1)!.body);
    expect(told).toContain('REMOTE-NESTED-RULE: use tabs here.');
    expect(told).not.toContain('LOCAL-NESTED-RULE');
    expect(result.stderr).not.toMatch(/AGENTS\.md/);
  });
});
