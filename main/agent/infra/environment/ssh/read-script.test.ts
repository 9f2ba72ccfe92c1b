import { mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SshEnvironment, processStartMs } from '#infra/environment/ssh/ssh-environment';
import { fileToolKit } from '#test-support/file-tools';
import { sshToTempHome } from '#test-support/ssh-home';
import { parseReadAnswer } from './read-script';

// Issue 29: a Read of a small file in ONE round trip (one script on the helper shell answering the open file's real
// path, stat and bytes), the path guard deciding on that answer before any byte is used.
const remote = sshToTempHome('deft-ssh-read-');

/** Round trips `work` costs on `ssh`: SFTP ones, and one per helper script. */
async function counted(ssh: SshEnvironment, work: () => Promise<unknown>) {
  const before = { ...ssh.usage };
  await work();
  return {
    sftpRoundTrips: ssh.usage.sftpRoundTrips - before.sftpRoundTrips,
    scripts: ssh.usage.helperScripts - before.helperScripts,
    oneTrip: ssh.usage.resolvedReads - before.resolvedReads,
  };
}

let k: Awaited<ReturnType<typeof fileToolKit>>;
beforeAll(async () => {
  // Wherever the machine can: on loopback a script costs more than the SFTP round trips it saves, so `auto` would not.
  remote.ssh.oneTripScripts = 'always';
  k = await fileToolKit({ environment: remote.ssh });
  expect(await remote.ssh.prepareResolvedReads()).toBe(true);
});
afterAll(() => k?.dispose());

describe('Read in one round trip over SSH', () => {
  it('reads a 1,000-line file with one helper script and no SFTP request, and the stale guard still holds', async () => {
    await k.put('thousand.ts', Array.from({ length: 1000 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n');
    let text = '';
    const usage = await counted(remote.ssh, async () => (text = (await k.call('Read', { path: 'thousand.ts' })).text));
    expect(usage).toEqual({ sftpRoundTrips: 0, scripts: 1, oneTrip: 1 });
    expect(text).toContain('1000\texport const line999 = 999;');
    expect(text).toContain('Total lines in file: 1000.');
    // The stat the Read recorded is the one SFTP gives: an Edit right after it is not refused as stale.
    expect((await k.call('Edit', { path: 'thousand.ts', old_string: 'line7 = 7;', new_string: 'line7 = 70;' })).text).toMatch(/Replaced 1 occurrence/);
    await writeFile(join(k.workspace, 'thousand.ts'), 'changed elsewhere\n');
    expect((await k.call('Edit', { path: 'thousand.ts', old_string: 'changed', new_string: 'CHANGED' })).text).toMatch(/modified on disk/);
  });

  it('reads names with newlines, quotes, dollars, backslashes and a leading dash, and an empty file', async () => {
    const name = '-rf \n\'"$(touch pwned)`x`\\ %s.txt';
    await k.put(name, 'hostile\nname\n');
    let text = '';
    const usage = await counted(remote.ssh, async () => (text = (await k.call('Read', { path: name })).text));
    expect(usage.oneTrip).toBe(1);
    expect(text).toContain('1\thostile\n2\tname');
    await k.put('empty.txt', '');
    expect((await k.call('Read', { path: 'empty.txt' })).text).toContain('The file is empty');
    await expect(remote.ssh.stat(join(k.workspace, 'pwned'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a link out of the folder with the same words as before, showing nothing of what it points at', async () => {
    await writeFile(join(k.outside, 'secret-notes.txt'), 'OUTSIDE-CONTENT\n');
    await symlink(join(k.outside, 'secret-notes.txt'), join(k.workspace, 'notes.txt'));
    const result = await k.call('Read', { path: 'notes.txt' });
    expect(result.result.isError).toBe(true);
    expect(result.text).toBe(
      `"notes.txt" is a symlink (or lies under one) that points outside the workspace, to ${join(k.outside, 'secret-notes.txt')}. To read it, use that absolute path.`,
    );
    expect(result.text).not.toContain('OUTSIDE-CONTENT');
    // Its absolute path is read (outside the folder, as allowed by the guard), in one round trip too.
    const outside = await counted(remote.ssh, async () =>
      expect((await k.call('Read', { path: join(k.outside, 'secret-notes.txt') })).text).toContain('OUTSIDE-CONTENT'),
    );
    expect(outside.oneTrip).toBe(1);
  });

  it('refuses secrets: a link to a .env, a key file by its content, and sends no byte of a secret by name', async () => {
    await writeFile(join(k.workspace, '.env'), 'TOKEN=hunter2\n');
    await symlink(join(k.workspace, '.env'), join(k.workspace, 'innocent.txt'));
    const viaLink = await k.call('Read', { path: 'innocent.txt' });
    expect(viaLink.text).toBe(
      `"innocent.txt" is a sensitive file (secrets such as .env files, private keys or cloud credentials). Deft's tools never read it; ask the user for the values you need.`,
    );
    expect(viaLink.text).not.toContain('hunter2');
    await k.put('deploy.pem', '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n');
    const key = await k.call('Read', { path: 'deploy.pem' });
    expect(key.text).toMatch(/is a sensitive file/);
    expect(key.text).not.toContain('AAAA');
    // A secret by its name: its bytes are never asked for (the guard's facts only, over SFTP, as before).
    expect(await counted(remote.ssh, async () => expect((await k.call('Read', { path: '.env' })).text).toMatch(/is a sensitive file/))).toMatchObject({
      scripts: 0,
      oneTrip: 0,
    });
  });

  it('falls back to SFTP, with the same messages, for a folder, a missing file, a FIFO and a file over 1 MiB', async () => {
    await mkdir(join(k.workspace, 'dir'));
    expect((await k.call('Read', { path: 'dir' })).text).toBe('dir is a directory, not a file. Use Glob to list the files in it.');
    expect((await k.call('Read', { path: 'nope.txt' })).text).toBe('nope.txt does not exist. Check the path; Glob finds files by name.');
    const fifo = remote.ssh.exec({ file: 'mkfifo', args: [join(k.workspace, 'pipe')], cwd: k.workspace });
    expect((await fifo.exit).code).toBe(0);
    const pipe = await counted(remote.ssh, async () =>
      expect((await k.call('Read', { path: 'pipe' })).text).toBe(
        'pipe is not a regular file (it is a device, socket or pipe), so the file tools do not open it.',
      ),
    );
    expect(pipe.oneTrip).toBe(0);
    const big = `${'y'.repeat(99)}\n`.repeat(11_000);
    await k.put('big.txt', big);
    const large = await counted(remote.ssh, async () => expect((await k.call('Read', { path: 'big.txt', n_lines: 2 })).text).toContain('2\tyyy'));
    expect(large.oneTrip).toBe(0);
    expect(large.sftpRoundTrips).toBeGreaterThan(0);
  });

  it('does not use bytes read before something was done through the environment (an earlier call of the step)', async () => {
    await k.put('racy.txt', 'before\n');
    const read = k.registry.get('Read')!.tool;
    // Resolved (the guard and the bytes, one round trip), then a write through the environment, then run.
    const execution = await read.resolveExecution({ path: 'racy.txt' }, k.env);
    if (!('execute' in execution)) throw new Error('not an execution');
    await remote.ssh.replaceFile(join(k.workspace, 'racy.txt'), 'after\n');
    const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
    expect(result.output).toBe('1\tafter');
    // And a command started meanwhile makes it read again too.
    const again = await read.resolveExecution({ path: 'racy.txt' }, k.env);
    if (!('execute' in again)) throw new Error('not an execution');
    const cmd = remote.ssh.exec({ file: 'sh', args: ['-c', `printf 'by a command\\n' > racy.txt`], cwd: k.workspace });
    await cmd.exit;
    expect((await again.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 })).output).toBe(
      '1\tby a command',
    );
    // And an earlier call of the step that may write anything (an MCP server's tool writes there on its own).
    const third = await read.resolveExecution({ path: 'racy.txt' }, { ...k.env, changedEarlier: () => true });
    if (!('execute' in third)) throw new Error('not an execution');
    await writeFile(join(k.workspace, 'racy.txt'), 'by a server\n');
    expect((await third.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 })).output).toBe(
      '1\tby a server',
    );
  });

  it('reads through a login shell whose start-up prints to stdout', { timeout: 30_000 }, async () => {
    await writeFile(join(remote.remoteHome, '.bashrc'), 'echo "welcome DEFT-HELPER junk"\nprintf "DEFT-R 1 2 3\\n"\n');
    const ssh = await remote.connect();
    ssh.oneTripScripts = 'always';
    try {
      expect(await ssh.prepareResolvedReads()).toBe(true);
      const kit = await fileToolKit({ environment: ssh });
      await kit.put('a.txt', 'alpha\n');
      const usage = await counted(ssh, async () => expect((await kit.call('Read', { path: 'a.txt' })).text).toContain('1\talpha'));
      expect(usage.oneTrip).toBe(1);
      await kit.dispose();
    } finally {
      await ssh.close();
      await rm(join(remote.remoteHome, '.bashrc'), { force: true });
    }
  });
});

describe('when the one-round-trip scripts are used', () => {
  it('auto: the probe measures a script against the round trips it saves; never: not at all', { timeout: 30_000 }, async () => {
    await writeFile(join(k.workspace, 'auto.txt'), 'auto\n');
    const auto = await remote.connect();
    const kit = await fileToolKit({ environment: auto });
    try {
      // Without the estimate (a machine whose `date` has no %N): the helper is started and a script timed.
      auto.processStartMs = null;
      expect(await auto.prepareResolvedReads()).toBe(true);
      const figures = auto.probeFigures!;
      expect(figures.scriptMs).toBeGreaterThan(0);
      expect(figures.roundTripMs).toBeGreaterThan(0);
      expect(figures.estimated).toBeUndefined();
      const pays = figures.scriptMs < 4 * figures.roundTripMs;
      const read = await counted(auto, async () => expect((await kit.call('Read', { path: join(k.workspace, 'auto.txt') })).text).toContain('auto'));
      expect(read.oneTrip).toBe(pays ? 1 : 0);
      auto.oneTripScripts = 'never';
      const never = await counted(auto, async () => expect((await kit.call('Read', { path: join(k.workspace, 'auto.txt') })).text).toContain('auto'));
      expect(never).toMatchObject({ oneTrip: 0, scripts: 0 });
      expect((await counted(auto, () => auto.replaceFile(join(k.workspace, 'auto.txt'), 'x\n'))).scripts).toBe(0);
    } finally {
      await kit.dispose();
      await auto.close();
    }
  });

  it('auto on loopback: the first Read starts no helper shell, since a process start there costs more than the round trips a script saves', {
    timeout: 30_000,
  }, async () => {
    await writeFile(join(k.workspace, 'loopback.txt'), 'near\n');
    const auto = await remote.connect();
    const kit = await fileToolKit({ environment: auto });
    try {
      // Measured at connect, with the connection's first command.
      expect(auto.processStartMs).toBeGreaterThan(0);
      const channels = auto.usage.execChannels;
      const first = await counted(auto, async () => expect((await kit.call('Read', { path: join(k.workspace, 'loopback.txt') })).text).toContain('near'));
      // The decision, taken in the background at that Read, without the helper.
      expect(await auto.prepareResolvedReads()).toBe(false);
      const figures = auto.probeFigures!;
      expect(figures.estimated).toBe(true);
      expect(figures.scriptMs).toBeGreaterThanOrEqual(4 * figures.roundTripMs);
      const second = await counted(auto, async () => expect((await kit.call('Read', { path: join(k.workspace, 'loopback.txt') })).text).toContain('near'));
      expect(first).toMatchObject({ scripts: 0, oneTrip: 0 });
      expect(second).toMatchObject({ scripts: 0, oneTrip: 0 });
      expect(auto.usage.execChannels - channels).toBe(0);
      // `always` (a bench, a test) still probes the machine and reads in one round trip.
      auto.oneTripScripts = 'always';
      expect(await auto.prepareResolvedReads()).toBe(true);
      const always = await counted(auto, async () => expect((await kit.call('Read', { path: join(k.workspace, 'loopback.txt') })).text).toContain('near'));
      expect(always).toMatchObject({ sftpRoundTrips: 0, scripts: 1, oneTrip: 1 });
    } finally {
      await kit.dispose();
      await auto.close();
    }
  });

  it("reckons a process start from the probe's two clock readings, and none where `date` has no %N", () => {
    expect(processStartMs('1700000000000000000 1700000000004000000')).toBe(1);
    expect(processStartMs('1700000000N 1700000000N')).toBeNull();
    expect(processStartMs('')).toBeNull();
  });
});

describe("the read script's answer", () => {
  const answer = (stdout: Buffer | string, code = 0) => parseReadAnswer({ stdout: Buffer.from(stdout), stderr: Buffer.alloc(0), code }, 1, 100);
  it('takes only the plain case: a regular file whose bytes are its size, real absolute paths', () => {
    expect(answer('/w/a\0/w\0' + '3 81a4 1700000000\0abc')).toMatchObject({ real: '/w/a', roots: ['/w'], size: 3, mode: 0o100644 });
    // A size that is not what was read (the file changed meanwhile), more than asked, a FIFO's mode, a file gone.
    expect(answer('/w/a\0/w\0' + '4 81a4 1700000000\0abc')).toBeNull();
    expect(answer('/w/a\0/w\0' + '101 81a4 1700000000\0' + 'x'.repeat(101))).toBeNull();
    expect(answer('/w/a\0/w\0' + '3 11a4 1700000000\0abc')).toBeNull();
    expect(answer('/w/a (deleted)\0/w\0' + '3 81a4 1700000000\0abc')).toBeNull();
    expect(answer('a\0/w\0' + '3 81a4 1700000000\0abc')).toBeNull();
    expect(answer('/w/a\0/w\0' + '3 81a4 1700000000\0abc', 94)).toBeNull();
    expect(answer('/w/a\0/w')).toBeNull();
  });
});

describe('an atomic replace in one round trip over SSH', () => {
  const replaced = async (ssh: SshEnvironment, path: string, data: string | Buffer) => {
    const before = { ...ssh.usage };
    const after = await ssh.replaceFile(path, data);
    return {
      after,
      sftpRoundTrips: ssh.usage.sftpRoundTrips - before.sftpRoundTrips,
      scripts: ssh.usage.helperScripts - before.helperScripts,
      oneTrip: ssh.usage.scriptedReplaces - before.scriptedReplaces,
    };
  };

  it('replaces an existing file with one helper script, keeping its mode, answering the stat SFTP gives', async () => {
    const file = join(k.workspace, 'run.sh');
    await writeFile(file, 'echo 1\n', { mode: 0o751 });
    const big = `echo 2\n${'#'.repeat(300 * 1024)}\n`;
    const done = await replaced(remote.ssh, file, big);
    expect(done).toMatchObject({ sftpRoundTrips: 0, scripts: 1, oneTrip: 1 });
    expect(await readFile(file, 'utf8')).toBe(big);
    expect((await stat(file)).mode & 0o7777).toBe(0o751);
    const bySftp = await remote.ssh.stat(file);
    expect(done.after).toMatchObject({ size: bySftp.size, mode: bySftp.mode, mtimeMs: bySftp.mtimeMs, ino: 0, nlink: 1 });
    expect(done.after!.isFile()).toBe(true);
    expect((await readdir(k.workspace)).filter((name) => name.includes('.deft-ssh-'))).toEqual([]);
  });

  it('writes every byte value exactly, under a hostile name, and a new file gets the mode a plain create gets', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + (i >> 8)) & 0xff));
    const name = join(k.workspace, '-n \n\'"$(touch pwned2)`x`\\ %s.bin');
    const done = await replaced(remote.ssh, name, bytes);
    expect(done.oneTrip).toBe(1);
    expect((await readFile(name)).equals(bytes)).toBe(true);
    await remote.ssh.writeFile(join(k.workspace, 'plain.txt'), 'x', { flag: 'wx' });
    expect((await replaced(remote.ssh, join(k.workspace, 'fresh.txt'), 'new\n')).oneTrip).toBe(1);
    expect((await stat(join(k.workspace, 'fresh.txt'))).mode & 0o7777).toBe((await stat(join(k.workspace, 'plain.txt'))).mode & 0o7777);
    await expect(stat(join(k.workspace, 'pwned2'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses through a folder that is a link (EXDEV), leaving no file and no temp either side', async () => {
    await mkdir(join(k.outside, 'real-dir'));
    await writeFile(join(k.outside, 'real-dir', 'f.txt'), 'old\n');
    await symlink(join(k.outside, 'real-dir'), join(k.workspace, 'link-dir'));
    await expect(remote.ssh.replaceFile(join(k.workspace, 'link-dir', 'f.txt'), 'new\n')).rejects.toMatchObject({
      code: 'EXDEV',
      message: expect.stringMatching(/changed while f\.txt was being written/),
    });
    expect(await readFile(join(k.outside, 'real-dir', 'f.txt'), 'utf8')).toBe('old\n');
    expect(await readdir(join(k.outside, 'real-dir'))).toEqual(['f.txt']);
  });

  it("an Edit after a Read: the guard with the bytes, then the replace checking the stale guard's stat there — two round trips, not seven", async () => {
    await k.put('e.ts', Array.from({ length: 1000 }, (_, i) => `export const line${i} = ${i};`).join('\n') + '\n');
    await k.call('Read', { path: 'e.ts' });
    const usage = await counted(remote.ssh, async () =>
      expect((await k.call('Edit', { path: 'e.ts', old_string: 'line7 = 7;', new_string: 'line7 = 70;' })).text).toMatch(/Replaced 1 occurrence/),
    );
    expect(usage).toMatchObject({ sftpRoundTrips: 0, scripts: 2 });
    expect(await k.get('e.ts')).toContain('export const line7 = 70;');
    // Changed there between the preview and the run: the replace refuses there, nothing is written, the words as before.
    const editTool = k.registry.get('Edit')!.tool;
    const execution = await editTool.resolveExecution({ path: 'e.ts', old_string: 'line8 = 8;', new_string: 'line8 = 80;', replace_all: false }, k.env);
    if (!('execute' in execution)) throw new Error('not an execution');
    await writeFile(join(k.workspace, 'e.ts'), 'export const line8 = 8; // changed elsewhere\n');
    const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^e\.ts was modified on disk since you last read or wrote it/);
    expect(await k.get('e.ts')).toBe('export const line8 = 8; // changed elsewhere\n');
  });

  it('a Write over a file after a Read: the guard with the old bytes (the diff), then the replace checking the stale guard there — two round trips', async () => {
    await k.put('w.txt', 'old line\r\nsecond\r\n');
    await k.call('Read', { path: 'w.txt' });
    let called: Awaited<ReturnType<typeof k.call>> | undefined;
    const usage = await counted(remote.ssh, async () => (called = await k.call('Write', { path: 'w.txt', content: 'new line\nsecond\n' })));
    // The old bytes came with the guard's answer: its line endings are kept, its diff shown.
    expect(called!.text).toBe('Wrote 18 bytes to w.txt (kept its CRLF line endings).');
    expect(called!.result.display).toMatchObject({ kind: 'diff', hunks: [{ lines: ['-old line', '+new line', ' second'] }] });
    expect(usage).toEqual({ sftpRoundTrips: 0, scripts: 2, oneTrip: 1 });
    expect(await k.get('w.txt')).toBe('new line\r\nsecond\r\n');
    // The Write recorded what it wrote: the next one needs no Read first.
    expect((await k.call('Write', { path: 'w.txt', content: 'third\n' })).text).toBe('Wrote 7 bytes to w.txt (kept its CRLF line endings).');
    // Changed elsewhere since: refused, nothing written.
    await writeFile(join(k.workspace, 'w.txt'), 'someone else\n');
    expect((await k.call('Write', { path: 'w.txt', content: 'mine\n' })).text).toMatch(/^w\.txt was modified on disk since you last read or wrote it/);
    expect(await k.get('w.txt')).toBe('someone else\n');
  });

  it('a Write of a new file, or of one not read, asks for no bytes first (no script that would find nothing)', async () => {
    const before = { ...remote.ssh.usage };
    expect((await k.call('Write', { path: 'brand-new.txt', content: 'fresh\n' })).text).toBe('Created brand-new.txt and wrote 6 bytes.');
    // The replace's script only.
    expect(remote.ssh.usage.helperScripts - before.helperScripts).toBe(1);
    await k.put('unread.txt', 'there\n');
    const scripts = remote.ssh.usage.helperScripts;
    expect((await k.call('Write', { path: 'unread.txt', content: 'mine\n' })).text).toMatch(/^unread\.txt has not been read in this session yet/);
    expect(remote.ssh.usage.helperScripts - scripts).toBe(0);
    expect(remote.ssh.usage.resolvedReads - before.resolvedReads).toBe(0);
  });

  it('a Write whose file changes there between the preview and the run is refused there, nothing written', async () => {
    await k.put('race.txt', 'before\n');
    await k.call('Read', { path: 'race.txt' });
    const writeTool = k.registry.get('Write')!.tool;
    const execution = await writeTool.resolveExecution({ path: 'race.txt', content: 'mine\n', mode: 'overwrite' }, k.env);
    if (!('execute' in execution)) throw new Error('not an execution');
    await writeFile(join(k.workspace, 'race.txt'), 'changed elsewhere meanwhile\n');
    const before = { ...remote.ssh.usage };
    const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
    expect(result.isError).toBe(true);
    expect(result.output).toMatch(/^race\.txt was modified on disk since you last read or wrote it/);
    expect(await k.get('race.txt')).toBe('changed elsewhere meanwhile\n');
    // The check ran there, in the replace's own script (then a stat, for the words).
    expect(remote.ssh.usage.scriptedReplaces - before.scriptedReplaces).toBe(0);
    expect(remote.ssh.usage.helperScripts - before.helperScripts).toBe(1);
    // Removed meanwhile: refused too, not made again from a stale preview.
    await k.call('Read', { path: 'race.txt' });
    const again = await writeTool.resolveExecution({ path: 'race.txt', content: 'mine\n', mode: 'overwrite' }, k.env);
    if (!('execute' in again)) throw new Error('not an execution');
    await rm(join(k.workspace, 'race.txt'));
    const gone = await again.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
    expect(gone.output).toBe('race.txt was removed while it was being written; nothing was written. Write it again to create it.');
    await expect(stat(join(k.workspace, 'race.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves the old content or the new, never a mix, when the link drops during the replace', { timeout: 60_000 }, async () => {
    const ssh = await remote.connect({ forMs: 20_000, delaysMs: [100, 200, 400] });
    ssh.oneTripScripts = 'always';
    try {
      expect(await ssh.prepareResolvedReads()).toBe(true);
      const file = join(k.workspace, 'drop.txt');
      const old = 'o'.repeat(900 * 1024);
      await writeFile(file, old);
      const small = join(k.workspace, 'small.txt');
      await writeFile(small, 's\n');
      // The helper on the current connection answering (after a drop the next read starts it on the new one).
      const helperReady = async () => {
        for (let i = 0; i < 100; i++) {
          if (await ssh.readResolved(small, [k.workspace], 1024)) return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error('the helper shell never came back');
      };
      for (const delay of [0, 5, 20, 60]) {
        await helperReady();
        // A file per round: a replace cut off here may still finish there later (its script outlives the link), so
        // it may land after this round looked, and only on its own file.
        const target = join(k.workspace, `drop-${delay}.txt`);
        await writeFile(target, old);
        const next = String(delay % 10).repeat(900 * 1024);
        const writing = ssh.replaceFile(target, next).then(
          () => 'done',
          (error: { code?: string }) => error.code,
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
        await remote.killConnections();
        const outcome = await writing;
        expect(['done', 'ECONNRESET']).toContain(outcome);
        const now = await readFile(target, 'utf8');
        expect([old, next]).toContain(now);
        // Reconnected for the next round.
        await ssh.stat(target);
      }
      await helperReady();
      expect((await replaced(ssh, file, 'after the drops\n')).oneTrip).toBe(1);
    } finally {
      await ssh.close();
    }
  });
});
