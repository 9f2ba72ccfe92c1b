import { lstat, mkdir, readFile, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SshEnvironment } from '#infra/environment/ssh/ssh-environment';
import { fileToolKit } from '#test-support/file-tools';
import { sshToTempHome } from '#test-support/ssh-home';

const remote = sshToTempHome('deft-ssh-usage-');

/** The SFTP requests and round trips `work` makes on the test connection. */
async function counted(work: () => Promise<unknown>): Promise<{ calls: number; roundTrips: number }> {
  const before = { ...remote.ssh.usage };
  await work();
  return { calls: remote.ssh.usage.sftpCalls - before.sftpCalls, roundTrips: remote.ssh.usage.sftpRoundTrips - before.sftpRoundTrips };
}

describe('SshEnvironment usage counters (benches count round trips with them)', () => {
  it('counts a stat as one SFTP call, one round trip and no exec channel', async () => {
    const file = `${remote.ssh.home}/counted.txt`;
    await remote.ssh.writeFile(file, 'one\ntwo\n');
    const before = { ...remote.ssh.usage };
    const all = { ...SshEnvironment.processUsage };
    expect(await counted(() => remote.ssh.stat(file))).toEqual({ calls: 1, roundTrips: 1 });
    expect(SshEnvironment.processUsage.sftpCalls - all.sftpCalls).toBe(1);
    expect(remote.ssh.usage.execChannels).toBe(before.execChannels);
  });

  it('counts requests sent together as one round trip', async () => {
    const file = `${remote.ssh.home}/together.txt`;
    await remote.ssh.writeFile(file, 'x');
    expect(await counted(() => Promise.all([remote.ssh.stat(file), remote.ssh.realpath(file), remote.ssh.lstat(file)]))).toEqual({
      calls: 3,
      roundTrips: 1,
    });
  });
});

describe('SFTP reads and writes in few round trips', () => {
  it('streams a small file in two round trips: open, then its fstat and first read together (close not waited for)', async () => {
    const file = `${remote.ssh.home}/lines.txt`;
    await remote.ssh.writeFile(file, 'a\nb\n');
    const lines: string[] = [];
    const usage = await counted(async () => {
      for await (const line of remote.ssh.readLines(file)) lines.push(line);
    });
    expect(lines).toEqual(['a', 'b']);
    expect(usage).toEqual({ calls: 4, roundTrips: 2 });
  });

  it('reads a whole file of several chunks in three round trips, every byte in order', async () => {
    const bytes = Buffer.alloc(300 * 1024 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 10)) & 0xff;
    await writeFile(join(remote.remoteHome, 'big.bin'), bytes);
    let got: Buffer = Buffer.alloc(0);
    const usage = await counted(async () => (got = await remote.ssh.readBytes(`${remote.ssh.home}/big.bin`)));
    expect(got.equals(bytes)).toBe(true);
    expect(usage.roundTrips).toBe(3);
    expect(await remote.ssh.readText(`${remote.ssh.home}/counted.txt`)).toBe('one\ntwo\n');
    await expect(remote.ssh.readBytes(remote.ssh.home)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(remote.ssh.readBytes(`${remote.ssh.home}/missing.txt`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('replaces an existing file in three round trips, keeping its mode, and answers its stat after the rename', async () => {
    const here = join(remote.remoteHome, 'script.sh');
    await writeFile(here, 'echo 1\n', { mode: 0o755 });
    const big = `echo 2\n${'#'.repeat(100 * 1024)}\n`;
    let after: Awaited<ReturnType<SshEnvironment['replaceFile']>> = null;
    const usage = await counted(async () => (after = await remote.ssh.replaceFile(`${remote.ssh.home}/script.sh`, big)));
    expect(usage.roundTrips).toBe(3);
    expect(await readFile(here, 'utf8')).toBe(big);
    expect((await stat(here)).mode & 0o7777).toBe(0o755);
    expect(after).toMatchObject({ size: Buffer.byteLength(big) });
    expect((await readdir(remote.remoteHome)).filter((name) => name.includes('.deft-ssh-'))).toEqual([]);
  });

  it('makes a new file in four round trips with the mode a plain create gets there', async () => {
    await remote.ssh.writeFile(`${remote.ssh.home}/plain.txt`, 'x', { flag: 'wx' });
    const usage = await counted(() => remote.ssh.replaceFile(`${remote.ssh.home}/fresh.txt`, 'new\n'));
    expect(usage.roundTrips).toBe(4);
    expect(await readFile(join(remote.remoteHome, 'fresh.txt'), 'utf8')).toBe('new\n');
    expect((await stat(join(remote.remoteHome, 'fresh.txt'))).mode & 0o7777).toBe((await stat(join(remote.remoteHome, 'plain.txt'))).mode & 0o7777);
    expect((await readdir(remote.remoteHome)).filter((name) => name.includes('.deft-ssh-'))).toEqual([]);
  });

  it('refuses to replace through a folder that is a link (not its real path), leaving no temp file either side', async () => {
    await mkdir(join(remote.remoteHome, 'real-dir'));
    await writeFile(join(remote.remoteHome, 'real-dir', 'f.txt'), 'old\n');
    await symlink(join(remote.ssh.home, 'real-dir'), join(remote.remoteHome, 'link-dir'));
    await expect(remote.ssh.replaceFile(`${remote.ssh.home}/link-dir/f.txt`, 'new\n')).rejects.toMatchObject({ code: 'EXDEV' });
    expect(await readFile(join(remote.remoteHome, 'real-dir', 'f.txt'), 'utf8')).toBe('old\n');
    expect(await readdir(join(remote.remoteHome, 'real-dir'))).toEqual(['f.txt']);
    expect((await lstat(join(remote.remoteHome, 'link-dir'))).isSymbolicLink()).toBe(true);
  });

  it('the file tools: a Read of 1,000 lines in four round trips over SFTP, one on the helper shell; an Edit in two', async () => {
    const k = await fileToolKit({ environment: remote.ssh });
    // Wherever the machine can (`auto` would choose by the link's round trip: on loopback, SFTP).
    remote.ssh.oneTripScripts = 'always';
    await k.put('thousand.ts', Array.from({ length: 1000 }, (_, i) => `export const line${i} = ${i}; // ${'x'.repeat(30)}`).join('\n') + '\n');
    let text = '';
    // Over SFTP (the first Read of a connection, while the helper shell is probed for the one-round-trip read in the
    // background): the path guard's facts (one), the Read's stat (one), open (one), fstat with the first 64 KiB (one).
    expect(await counted(async () => (text = (await k.call('Read', { path: 'thousand.ts' })).text))).toMatchObject({ roundTrips: 4 });
    expect(text).toContain('1000\texport const line999 = 999;');
    // Once the machine is known able: one script on the helper shell, no SFTP request (read-script.test.ts).
    expect(await remote.ssh.prepareResolvedReads()).toBe(true);
    const scripts = remote.ssh.usage.helperScripts;
    expect(await counted(async () => (text = (await k.call('Read', { path: 'thousand.ts' })).text))).toEqual({ calls: 0, roundTrips: 0 });
    expect(remote.ssh.usage.helperScripts - scripts).toBe(1);
    expect(text).toContain('1000\texport const line999 = 999;');
    // Over SFTP an Edit was seven: resolving, the guard (one) and the file read whole (two); running, its stat (one)
    // and the replace (three). Now: the guard with the file's bytes (one script), the replace checking there that
    // the file is as it was read (one script).
    const scriptsBefore = remote.ssh.usage.helperScripts;
    const edit = await counted(async () => (text = (await k.call('Edit', { path: 'thousand.ts', old_string: 'line7 = 7;', new_string: 'line7 = 70;' })).text));
    expect(text).toMatch(/Replaced 1 occurrence/);
    expect(edit.roundTrips).toBe(0);
    expect(remote.ssh.usage.helperScripts - scriptsBefore).toBe(2);
    expect(await k.get('thousand.ts')).toContain('export const line7 = 70;');
    // The stale-file guard still holds: a change made elsewhere is refused until the file is read again.
    await writeFile(join(k.workspace, 'thousand.ts'), 'changed elsewhere\n');
    expect((await k.call('Edit', { path: 'thousand.ts', old_string: 'changed', new_string: 'CHANGED' })).text).toMatch(/modified|changed since/i);
    await k.dispose();
  });
});

describe('the Write tool over SFTP (no helper scripts)', () => {
  it('overwrites a file after a Read in seven round trips, not nine: its look is not read again when it runs', async () => {
    const ssh = await remote.connect();
    ssh.oneTripScripts = 'never';
    const k = await fileToolKit({ environment: ssh });
    try {
      await k.put('w.txt', 'old\n');
      await k.call('Read', { path: 'w.txt' });
      const before = { ...ssh.usage };
      expect((await k.call('Write', { path: 'w.txt', content: 'new\n' })).text).toBe('Wrote 4 bytes to w.txt.');
      // Resolving: the guard (one), the file read whole (two); running: the stat the replace is checked against (one),
      // the replace (three).
      expect(ssh.usage.sftpRoundTrips - before.sftpRoundTrips).toBe(7);
      expect(ssh.usage.helperScripts - before.helperScripts).toBe(0);
      expect(await k.get('w.txt')).toBe('new\n');
    } finally {
      await k.dispose();
    }
  });
});

describe('commands on a login shell started ahead', () => {
  const run = async (ssh: SshEnvironment, command: string, input?: string) => {
    const proc = ssh.exec({ file: 'sh', args: ['-c', command], cwd: ssh.home, ...(input !== undefined ? { stdin: 'pipe' as const } : {}) });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.resume();
    if (input !== undefined) proc.stdin!.end(input);
    const exit = await proc.exit;
    return { out, code: exit.code };
  };
  const ready = () => new Promise((resolve) => setTimeout(resolve, 600));

  it('sees what a command of its own sees (the login environment, stdin), exits with its code, and its tree is killed', { timeout: 30_000 }, async () => {
    await writeFile(join(remote.remoteHome, '.bashrc'), 'export DEFT_FROM_BASHRC=yes\n');
    const ssh = await remote.connect();
    try {
      // The first command starts a process of its own, and a shell for the next.
      expect(await run(ssh, 'echo "rc=$DEFT_FROM_BASHRC in $(pwd)"; exit 3')).toEqual({ out: `rc=yes in ${ssh.home}\n`, code: 3 });
      expect(ssh.usage.warmShells).toBe(0);
      await ready();
      const channels = ssh.usage.execChannels;
      expect(await run(ssh, 'echo "rc=$DEFT_FROM_BASHRC in $(pwd)"; exit 4')).toEqual({ out: `rc=yes in ${ssh.home}\n`, code: 4 });
      expect(ssh.usage.warmShells).toBe(1);
      // No exec channel was opened for it: only the next shell's.
      expect(ssh.usage.execChannels - channels).toBe(1);
      await ready();
      expect(await run(ssh, 'tr a-z A-Z', "it's\nmulti-line %s \\ input\n")).toEqual({ out: "IT'S\nMULTI-LINE %S \\ INPUT\n", code: 0 });
      expect(ssh.usage.warmShells).toBe(2);
      await ready();
      const tree = ssh.exec({ file: 'sh', args: ['-c', 'sleep 300 & sleep 301'], cwd: ssh.home });
      await tree.started;
      expect(ssh.usage.warmShells).toBe(3);
      await tree.kill(1_000);
      expect((await tree.exit).code === 0).toBe(false);
      const left = await run(ssh, `ps -o pid=,stat= -g ${tree.pid} | awk '$2 !~ /^Z/' || true`);
      expect(left.out.trim()).toBe('');
    } finally {
      await ssh.close();
    }
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
