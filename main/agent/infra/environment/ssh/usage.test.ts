import { describe, expect, it } from 'vitest';
import { SshEnvironment } from '#infra/environment/ssh/ssh-environment';
import { sshToTempHome } from '#test-support/ssh-home';

const remote = sshToTempHome('deft-ssh-usage-');

describe('SshEnvironment usage counters (benches count round trips with them)', () => {
  it('counts a stat as one SFTP call and no exec channel', async () => {
    const file = `${remote.ssh.home}/counted.txt`;
    await remote.ssh.writeFile(file, 'one\ntwo\n');
    const before = { ...remote.ssh.usage };
    const all = { ...SshEnvironment.processUsage };
    await remote.ssh.stat(file);
    expect(remote.ssh.usage.sftpCalls - before.sftpCalls).toBe(1);
    expect(SshEnvironment.processUsage.sftpCalls - all.sftpCalls).toBe(1);
    expect(remote.ssh.usage.execChannels).toBe(before.execChannels);
  });

  it('counts each SFTP call of a streamed read: open, fstat, the reads, close', async () => {
    const file = `${remote.ssh.home}/lines.txt`;
    await remote.ssh.writeFile(file, 'a\nb\n');
    const before = remote.ssh.usage.sftpCalls;
    const lines: string[] = [];
    for await (const line of remote.ssh.readLines(file)) lines.push(line);
    expect(lines).toEqual(['a', 'b']);
    // open, fstat, a read with the bytes, a read finding the end (the reader fills its span), another (the line
    // reader asks again), close.
    expect(remote.ssh.usage.sftpCalls - before).toBe(6);
  });
});
