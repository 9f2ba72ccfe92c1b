import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remoteCliRig } from '#test-support/remote-cli';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { SshEnvironment } from '#infra/environment/ssh/ssh-environment';

// Issue 29: a one-shot `deft run --remote` pays for no login shell it does not use. A shell started ahead of the
// next command (warm-shell.ts) costs the remote a login (its `.bashrc`, `pyenv init`…) even when closed unused.

const rig = remoteCliRig('deft-remote-shells', { bind: false });

/** One `deft run` (sandbox and checkpoints off: only the model's commands start processes there), and what it opened there. */
async function counted(prompt: string): Promise<{ channels: number; warm: number; ahead: number; stdout: string }> {
  const before = { ...SshEnvironment.processUsage };
  const result = await rig.run(prompt, { extra: ['--sandbox', 'off'] });
  expect(result.code, result.stderr).toBe(0);
  return {
    channels: SshEnvironment.processUsage.execChannels - before.execChannels,
    warm: SshEnvironment.processUsage.warmShells - before.warmShells,
    ahead: SshEnvironment.processUsage.shellsAhead - before.shellsAhead,
    stdout: result.stdout,
  };
}

describe('deft run --remote: login shells started ahead', () => {
  it('a run of one command starts one login shell there, when the call begins, and runs the command on it; a run of three starts one more', {
    timeout: 60_000,
  }, async () => {
    await writeFile(join(rig.home, 'settings.json'), JSON.stringify({ checkpoints: { enabled: false } }));
    rig.server.enqueue(textReply('Nothing to run.'));
    const none = await counted('say something');
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'echo one > one.txt', description: 'one' })), textReply('Ran it.'));
    const one = await counted('run one command');
    expect(await readFile(join(rig.there, 'one.txt'), 'utf8')).toBe('one\n');
    // The helper shell (the sandbox's probe, the approval's facts) and the login shell started when the model began
    // the call, which the command ran on: no shell started for a next command that never came.
    expect(one.channels - none.channels).toBe(2);
    expect(one.warm).toBe(1);
    expect(one.ahead).toBe(1);
    rig.server.enqueue(
      toolStep(callChunk('Bash', { command: 'echo 1 >> three.txt', description: 'first' })),
      toolStep(callChunk('Bash', { command: 'echo 2 >> three.txt', description: 'second' })),
      toolStep(callChunk('Bash', { command: 'echo 3 >> three.txt', description: 'third' })),
      textReply('Ran them.'),
    );
    const three = await counted('run three commands');
    expect(await readFile(join(rig.there, 'three.txt'), 'utf8')).toBe('1\n2\n3\n');
    // The first runs on the shell started when the call began; the second on a channel of its own (the turn's later
    // calls of a tool are not announced), and from it on the next shell is started ahead: the third runs on it. Only
    // the shell started at the third is left unused (no one knows then that the turn has no more).
    expect(three.warm).toBe(2);
    expect(three.ahead).toBe(3);
    expect(three.channels - none.channels).toBe(5);
  });
});
