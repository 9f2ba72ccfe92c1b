import { utimes, writeFile } from 'node:fs/promises';
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

  it('gets many modification times with one helper script and no SFTP call, the same times SFTP stats give', async () => {
    const dir = `${remote.ssh.home}/times`;
    await remote.ssh.mkdir(dir);
    const paths = Array.from({ length: 300 }, (_, i) => `${dir}/file ${i}.txt`);
    for (const [i, path] of paths.entries()) {
      await writeFile(remote.here(path), 'x');
      await utimes(remote.here(path), 1_650_000_000, 1_650_000_000 + ((i * 37) % 300));
    }
    paths.push(`${dir}/missing.txt`);
    const before = { ...remote.ssh.usage };
    const times = await remote.ssh.mtimes(paths);
    expect(remote.ssh.usage.sftpCalls - before.sftpCalls).toBe(0);
    expect(remote.ssh.usage.helperScripts - before.helperScripts).toBe(1);
    const bySftp = await Promise.all(
      paths.map((path) =>
        remote.ssh.stat(path).then(
          (info) => info.mtimeMs,
          () => -Infinity,
        ),
      ),
    );
    expect([...times]).toEqual(bySftp);
  });
});
