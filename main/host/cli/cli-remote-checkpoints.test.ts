import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { remoteCliRig } from '#test-support/remote-cli';

// Issue 29: checkpoints and rewind on a remote folder. The sshd runs in a mount namespace of its own, where the remote
// folder (`there`) shows at `path` and the user's home is another folder (`remoteHome`): the store it keeps under
// ~/.deft/checkpoints on the remote machine is found in `remoteHome`, never in this machine's home. The same server
// answers on a second port as a machine without git on its PATH.

const rig = remoteCliRig('deft-remote-ckpt', { variant: { drop: (name) => name.startsWith('git') } });
const userHomeThere = userInfo().homedir;

beforeEach(async () => {
  for (const dir of [rig.there, rig.path]) for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
  await rm(join(rig.remoteHome, '.deft'), { recursive: true, force: true });
});

const cli = (...args: string[]) => rig.cli(args);
const target = (variant = false) => rig.target(undefined, variant);
const run = (prompt: string, variant = false) => rig.run(prompt, { extra: ['--continue'], variant });

describe('deft run --remote: checkpoints and rewind', () => {
  it('a turn’s edit and command are checkpointed on the remote machine and rewound there; secrets are not stored', { timeout: 90_000 }, async () => {
    await writeFile(join(rig.there, 'notes.txt'), 'red\n');
    await writeFile(join(rig.there, '.env'), 'TOKEN=remote-secret-value\n');
    // This machine's folder of the same path: never looked at, never changed.
    await writeFile(join(rig.path, 'notes.txt'), 'local\n');

    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'blue' })),
      toolStep(callChunk('Bash', { command: 'echo made > made.txt', description: 'make a file' })),
      textReply('Done.'),
    );
    const first = await run('paint it blue');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('checkpoint could not be saved');
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('blue\n');
    expect(await readFile(join(rig.there, 'made.txt'), 'utf8')).toBe('made\n');

    // The store: on the remote machine, under Deft's folder there; none here.
    const stores = await readdir(join(rig.remoteHome, '.deft', 'checkpoints'));
    expect(stores).toHaveLength(1);
    expect(stores[0]).toMatch(/\.git$/);
    expect(existsSync(join(userHomeThere, '.deft', 'checkpoints', stores[0]!))).toBe(false);
    expect(existsSync(join(rig.home, 'checkpoints', stores[0]!))).toBe(false);

    const listed = await cli('checkpoints', '--remote', target(), '--continue', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const json = JSON.parse(listed.stdout) as { status: { available: boolean }; prompts: Array<{ index: number; text: string; changedFiles: number }> };
    expect(json.status.available).toBe(true);
    expect(json.prompts.filter((p) => p.index > 0).map((p) => [p.index, p.text, p.changedFiles])).toEqual([[1, 'paint it blue', 2]]);

    // The secret was never stored: no blob of the store holds it (the remote's git lists every object).
    const storeDir = join(rig.remoteHome, '.deft', 'checkpoints', stores[0]!);
    const objects = execFileSync('git', ['--git-dir', storeDir, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 1 << 24 }).toString('latin1');
    expect(objects).toContain('red\n');
    expect(objects).not.toContain('remote-secret-value');

    const rewound = await cli('rewind', '--remote', target(), '--continue', '--to', '1', '--scope', 'code');
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain('1 restored, 1 removed');
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('red\n');
    expect(existsSync(join(rig.there, 'made.txt'))).toBe(false);
    // The secret is left as it is (it was never in a checkpoint), and the local folder is untouched.
    expect(await readFile(join(rig.there, '.env'), 'utf8')).toBe('TOKEN=remote-secret-value\n');
    expect(await readdir(rig.path)).toEqual(['notes.txt']);
    expect(await readFile(join(rig.path, 'notes.txt'), 'utf8')).toBe('local\n');

    // Undo brings the turn's changes back, there.
    const undone = await cli('rewind', '--remote', target(), '--continue', '--undo');
    expect(undone.code, undone.stderr).toBe(0);
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('blue\n');
    expect(await readFile(join(rig.there, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('a remote machine without git: checkpoints are unavailable, with the reason, and the turn runs', { timeout: 60_000 }, async () => {
    rig.server.enqueue(toolStep(callChunk('Write', { path: 'new.txt', content: 'x\n' })), textReply('Wrote it.'));
    const first = await run('write', true);
    expect(first.code, first.stderr).toBe(0);
    expect(await readFile(join(rig.there, 'new.txt'), 'utf8')).toBe('x\n');
    const listed = await cli('checkpoints', '--remote', target(true), '--continue');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(
      `checkpoints unavailable: Checkpoints need git on ${rig.sshd.username}@127.0.0.1:${rig.sshd.variants[0]}, and git was not found there.`,
    );
  });
});
