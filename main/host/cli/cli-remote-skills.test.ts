import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { type CliIo, runCli } from './cli';

// Issue 29: a remote folder's skills are the remote folder's. The sshd runs in a mount namespace of its own where
// `path` shows another folder (`there`), so a skill read on this machine's disk at `path` would be told apart.

let sshd: TestSshd;
let server: MockModelServer;
let there: string;
let path: string;
let home: string;
let userHome: string;
let cwd: string;

beforeAll(async () => {
  const bin = await tempDir('deft-remote-skills-bin-');
  await symlink(ripgrepPath(), join(bin, 'rg'));
  there = await tempDir('deft-remote-skills-there-');
  path = await tempDir('deft-remote-skills-path-');
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

async function skill(root: string, name: string, body: string) {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name} does a thing\n---\n${body}\n`);
}

beforeEach(async () => {
  home = await tempDir('deft-remote-skills-home-');
  userHome = await tempDir('deft-remote-skills-user-');
  cwd = await tempDir('deft-remote-skills-cwd-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  for (const dir of [there, path]) {
    for (const name of ['.deft', '.claude', 'ran.txt']) await rm(join(dir, name), { recursive: true, force: true });
  }
  await skill(join(there, '.deft', 'skills'), 'remote-greet', 'REMOTE-SKILL-BODY: run `sh .deft/skills/remote-greet/run.sh`.');
  await writeFile(join(there, '.deft', 'skills', 'remote-greet', 'run.sh'), 'hostname > ran.txt\n');
  // This machine's folder at the same path: its skills must not be seen by the remote session.
  await skill(join(path, '.deft', 'skills'), 'local-impostor', 'LOCAL-SKILL-BODY');
  // The user's own skills stay on this machine.
  await skill(join(home, 'skills'), 'user-own', 'USER-SKILL-BODY');
});

async function run(prompt: string, extra: string[] = []) {
  let stderr = '';
  const io: CliIo = {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const target = `${sshd.username}@127.0.0.1:${sshd.port}:${path}`;
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target, ...extra, prompt], io);
  const requests = server.requests.map((r) => JSON.stringify(r.body));
  const toolResults = server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  return { code, stderr, requests, toolResults };
}

describe('deft run --remote: skills', () => {
  it('lists the remote folder’s skills and the user’s own, loads one, and its script runs there', { timeout: 90_000 }, async () => {
    server.enqueue(
      toolStep(callChunk('Skill', { skill: 'remote-greet' })),
      toolStep(callChunk('Bash', { command: 'sh .deft/skills/remote-greet/run.sh', description: 'run the skill script' })),
      textReply('Done.'),
    );
    const result = await run('greet');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/skills/);
    const first = result.requests.at(-3)!;
    expect(first).toContain('remote-greet');
    expect(first).toContain('user-own');
    expect(first).not.toContain('local-impostor');
    expect(result.requests.at(-2)).toContain('REMOTE-SKILL-BODY');
    // The script ran on the remote machine: in its folder, not in this machine's folder of the same path.
    expect(existsSync(join(there, 'ran.txt'))).toBe(true);
    expect(existsSync(join(path, 'ran.txt'))).toBe(false);
  });

  it('a remote workspace command’s shell lines are not run before the remote folder is trusted', { timeout: 90_000 }, async () => {
    await mkdir(join(there, '.claude', 'commands'), { recursive: true });
    await writeFile(join(there, '.claude', 'commands', 'boom.md'), '---\ndescription: boom\n---\nContext: !`touch ran.txt`\n');
    server.enqueue(toolStep(callChunk('Skill', { skill: 'boom' })), textReply('Done.'));
    const result = await run('boom');
    expect(result.code).toBe(0);
    expect(result.requests.at(-1)).toContain('not run: this folder is not trusted');
    expect(existsSync(join(there, 'ran.txt'))).toBe(false);
  });

  it('--skills-dir names a folder on this machine: its skills replace the remote folder’s and the user’s', { timeout: 90_000 }, async () => {
    const mine = await tempDir('deft-remote-skills-dir-');
    await skill(mine, 'from-dir', 'DIR-SKILL-BODY');
    server.enqueue(toolStep(callChunk('Skill', { skill: 'from-dir' })), textReply('Done.'));
    const result = await run('use it', ['--skills-dir', mine]);
    expect(result.code).toBe(0);
    const first = result.requests.at(-2)!;
    expect(first).toContain('from-dir');
    for (const other of ['remote-greet', 'user-own', 'local-impostor']) expect(first).not.toContain(other);
    expect(result.requests.at(-1)).toContain('DIR-SKILL-BODY');
  });
});
