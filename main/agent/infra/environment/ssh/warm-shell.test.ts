import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { SshEnvironment } from '#infra/environment/ssh/ssh-environment';
import { sshToTempHome } from '#test-support/ssh-home';
import { WARM_BOOTSTRAP, warmLine } from './warm-shell';

describe('the command line a login shell started ahead reads', () => {
  // Newlines, quotes of both kinds, backslashes, %, $ and a carriage return: the command text arrives exactly.
  const command = `printf '%s|' "a 'b'" '"c"' 'd\\e' '%s' "$HOME" 'x\ry'; echo
echo "second line"; cat`;
  it.each(['sh', 'bash'])('runs the exact command on %s, and the bytes after it are its stdin', (shell) => {
    const out = execFileSync(shell, ['-c', WARM_BOOTSTRAP], { input: `${warmLine(command)}stdin 1\nstdin 2\n`, env: { HOME: '/h', PATH: process.env.PATH } });
    expect(out.toString()).toBe(`a 'b'|"c"|d\\e|%s|/h|x\ry|\nsecond line\nstdin 1\nstdin 2\n`);
  });
});

const remote = sshToTempHome('deft-warm-shell-');

async function run(ssh: SshEnvironment, command: string): Promise<string> {
  const proc = ssh.exec({ file: 'sh', args: ['-c', command], cwd: ssh.home });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr.resume();
  await proc.exit;
  return out;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('login shells started ahead of the next command (over a real sshd)', () => {
  it('`repeated` (a one-shot run): the first command starts no shell ahead, the second does, and the third runs on it', async () => {
    const ssh = await remote.connect();
    try {
      ssh.shellsAhead = 'repeated';
      const channels = ssh.usage.execChannels;
      expect(await run(ssh, 'echo one')).toBe('one\n');
      // Its own channel only: nothing started for a next command that may never come.
      expect(ssh.usage.execChannels - channels).toBe(1);
      expect(await run(ssh, 'echo two')).toBe('two\n');
      // Its own, and the shell for the next.
      expect(ssh.usage.execChannels - channels).toBe(3);
      await pause(300);
      expect(await run(ssh, 'echo three')).toBe('three\n');
      expect(ssh.usage.warmShells).toBe(1);
    } finally {
      await ssh.close();
    }
  });

  it('a command coming (the model began its call) starts its shell at once, whichever the mode, and nothing after it in `repeated`', async () => {
    const ssh = await remote.connect();
    try {
      ssh.shellsAhead = 'repeated';
      const channels = ssh.usage.execChannels;
      ssh.commandComing();
      // Twice: still the one shell.
      ssh.commandComing();
      expect(ssh.usage.execChannels - channels).toBe(1);
      expect(await run(ssh, 'echo one')).toBe('one\n');
      expect(ssh.usage.warmShells).toBe(1);
      expect(ssh.usage.execChannels - channels).toBe(1);
    } finally {
      await ssh.close();
    }
  });

  it('`eager` (a window): the first command already starts the shell for the next', async () => {
    const ssh = await remote.connect();
    try {
      const channels = ssh.usage.execChannels;
      expect(await run(ssh, 'echo one')).toBe('one\n');
      expect(ssh.usage.execChannels - channels).toBe(2);
    } finally {
      await ssh.close();
    }
  });
});
