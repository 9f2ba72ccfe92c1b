import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { remoteCliRig } from '#test-support/remote-cli';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';

// Issue 29: a remote folder's skills are the remote folder's. The sshd runs in a mount namespace of its own where
// `path` shows another folder (`there`), so a skill read on this machine's disk at `path` would be told apart.

const rig = remoteCliRig('deft-remote-skills', { ripgrep: true });

async function skill(root: string, name: string, body: string) {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${name} does a thing\n---\n${body}\n`);
}

beforeEach(async () => {
  for (const dir of [rig.there, rig.path]) {
    for (const name of ['.deft', '.claude', 'ran.txt']) await rm(join(dir, name), { recursive: true, force: true });
  }
  await skill(join(rig.there, '.deft', 'skills'), 'remote-greet', 'REMOTE-SKILL-BODY: run `sh .deft/skills/remote-greet/run.sh`.');
  await writeFile(join(rig.there, '.deft', 'skills', 'remote-greet', 'run.sh'), 'hostname > ran.txt\n');
  // This machine's folder at the same path: its skills must not be seen by the remote session.
  await skill(join(rig.path, '.deft', 'skills'), 'local-impostor', 'LOCAL-SKILL-BODY');
  // The user's own skills stay on this machine.
  await skill(join(rig.home, 'skills'), 'user-own', 'USER-SKILL-BODY');
});

async function run(prompt: string, extra: string[] = []) {
  const result = await rig.run(prompt, { extra });
  return { ...result, requests: rig.server.requests.map((r) => JSON.stringify(r.body)) };
}

describe('deft run --remote: skills', () => {
  it('lists the remote folder’s skills and the user’s own, loads one, and its script runs there', { timeout: 90_000 }, async () => {
    rig.server.enqueue(
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
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(true);
    expect(existsSync(join(rig.path, 'ran.txt'))).toBe(false);
  });

  it('a remote workspace command’s shell lines are not run before the remote folder is trusted', { timeout: 90_000 }, async () => {
    await mkdir(join(rig.there, '.claude', 'commands'), { recursive: true });
    await writeFile(join(rig.there, '.claude', 'commands', 'boom.md'), '---\ndescription: boom\n---\nContext: !`touch ran.txt`\n');
    rig.server.enqueue(toolStep(callChunk('Skill', { skill: 'boom' })), textReply('Done.'));
    const result = await run('boom');
    expect(result.code).toBe(0);
    expect(result.requests.at(-1)).toContain('not run: this folder is not trusted');
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(false);
  });

  it('--skills-dir names a folder on this machine: its skills replace the remote folder’s and the user’s', { timeout: 90_000 }, async () => {
    const mine = await tempDir('deft-remote-skills-dir-');
    await skill(mine, 'from-dir', 'DIR-SKILL-BODY');
    rig.server.enqueue(toolStep(callChunk('Skill', { skill: 'from-dir' })), textReply('Done.'));
    const result = await run('use it', ['--skills-dir', mine]);
    expect(result.code).toBe(0);
    const first = result.requests.at(-2)!;
    expect(first).toContain('from-dir');
    for (const other of ['remote-greet', 'user-own', 'local-impostor']) expect(first).not.toContain(other);
    expect(result.requests.at(-1)).toContain('DIR-SKILL-BODY');
  });
});
