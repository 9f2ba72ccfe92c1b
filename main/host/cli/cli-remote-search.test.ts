import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import { SshEnvironment } from '#infra/environment/ssh/ssh-environment';
import { fileToolKit } from '#test-support/file-tools';
import { remoteCliRig } from '#test-support/remote-cli';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';

// Issue 29: search on a remote machine without `rg`: the bundled ripgrep is uploaded (checked by hash), or grep stands
// in with the same result shape and a notice. The rig's remote PATH has no rg (this machine has none in /usr/bin).

const rig = remoteCliRig('deft-remote-search');

const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

beforeEach(async () => {
  await rm(join(rig.remoteHome, '.deft'), { recursive: true, force: true });
  await rm(join(rig.there, 'src'), { recursive: true, force: true });
  await mkdir(join(rig.there, 'src'), { recursive: true });
  await writeFile(join(rig.there, 'src', 'needle.txt'), 'hay\nfind the NEEDLE-42 here\nhay\n');
});

async function grep() {
  rig.server.enqueue(toolStep(callChunk('Grep', { pattern: 'NEEDLE-\\d+', output_mode: 'content' })), textReply('Done.'));
  return rig.run('find it');
}

describe('deft run --remote: search without rg there', () => {
  it('uploads the bundled ripgrep into ~/.deft/bin (0700) under its hash, and Grep finds the remote file', { timeout: 90_000 }, async () => {
    const result = await grep();
    expect(result.code).toBe(0);
    expect(result.toolResults.at(-1)).toContain('src/needle.txt:2:find the NEEDLE-42 here');
    expect(result.stderr).not.toMatch(/searching with grep/);
    const hash = await sha(ripgrepPath());
    const uploaded = join(rig.remoteHome, '.deft', 'bin', `rg-${hash.slice(0, 16)}`);
    expect(await sha(uploaded)).toBe(hash);
    expect((await stat(uploaded)).mode & 0o777).toBe(0o755);
    expect((await stat(join(rig.remoteHome, '.deft', 'bin'))).mode & 0o777).toBe(0o700);
    // The next run reuses it (nothing left behind under a temporary name).
    expect((await grep()).toolResults.at(-1)).toContain('NEEDLE-42');
    expect((await readdir(join(rig.remoteHome, '.deft', 'bin'))).sort()).toEqual([`rg-${hash.slice(0, 16)}`]);
  });

  it('never runs a file planted at that name with other content: it is replaced by the verified upload', { timeout: 90_000 }, async () => {
    const hash = await sha(ripgrepPath());
    const bin = join(rig.remoteHome, '.deft', 'bin');
    await mkdir(bin, { recursive: true });
    const marker = join(rig.remoteHome, 'planted-ran');
    await writeFile(join(bin, `rg-${hash.slice(0, 16)}`), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const result = await grep();
    expect(result.code).toBe(0);
    expect(result.toolResults.at(-1)).toContain('NEEDLE-42');
    expect(existsSync(marker)).toBe(false);
    expect(await sha(join(bin, `rg-${hash.slice(0, 16)}`))).toBe(hash);
  });
});

describe('search on a remote machine of another OS/arch (grep fallback)', () => {
  it('Grep and Glob give the same results as ripgrep here, with a one-line notice once', { timeout: 90_000 }, async () => {
    const env = await SshEnvironment.connect(
      { host: '127.0.0.1', port: rig.sshd.port, username: rig.sshd.username, privateKey: rig.sshd.privateKey, knownHostsFiles: [rig.sshd.knownHosts] },
      undefined,
      undefined,
      { localRipgrep: { path: ripgrepPath(), platform: 'plan9', arch: 'mips' } },
    );
    const notices: string[] = [];
    env.onSearchNotice((n) => notices.push(n));
    const remote = await fileToolKit({ environment: env });
    const local = await fileToolKit();
    try {
      const files: Array<[string, string]> = [
        ['src/a.ts', 'const x = 1;\n// TODO one\nconst y = 2;\n'],
        ['src/deep/b.ts', 'todo lower\n// TODO two\n'],
        ['notes.md', 'TODO in markdown\n'],
        ['.git/HEAD', 'TODO in git\n'],
        ['src/long.ts', `// TODO ${'x'.repeat(3000)}\n`],
      ];
      for (const kit of [remote, local]) {
        // Whole, distinct seconds: results are newest first, and SFTP gives times in seconds.
        for (const [i, [name, text]] of files.entries()) await utimes(await kit.put(name, text), 1_700_000_000 + i * 10, 1_700_000_000 + i * 10);
      }
      env.enter(remote.workspace);
      const calls: Array<[string, Record<string, unknown>]> = [
        ['Grep', { pattern: 'TODO' }],
        ['Grep', { pattern: 'TODO', output_mode: 'content', glob: '*.ts', '-C': 1 }],
        ['Grep', { pattern: 'todo', output_mode: 'count_matches', '-i': true }],
        ['Grep', { pattern: 'TODO', glob: 'src/**/*.ts' }],
        ['Glob', { pattern: '**/*.ts' }],
        ['Glob', { pattern: '*.md' }],
      ];
      for (const [index, [tool, args]] of calls.entries()) {
        const there = await remote.call(tool, args);
        const here = await local.call(tool, args);
        const text = there.text.split('\n').filter((line) => !line.startsWith('ripgrep is not on'));
        expect(text.join('\n'), `${tool} ${JSON.stringify(args)}`).toBe(here.text);
        expect(there.result.display).toEqual(here.result.display);
        // The notice: in the first result only.
        expect(there.text.includes('searching with grep, which is slower and ignores .gitignore')).toBe(index === 0);
      }
      expect(notices).toHaveLength(1);
      // Sorted newest first without an SFTP call per result: three files cost what one does.
      const sftpFor = async (pattern: string) => {
        const before = env.usage.sftpCalls;
        await remote.call('Glob', { pattern });
        return env.usage.sftpCalls - before;
      };
      expect(await sftpFor('**/*.ts')).toBe(await sftpFor('*.md'));
      expect(notices[0]).toMatch(/^ripgrep is not on .* and could not be uploaded \(it is Linux \S+, and the bundled ripgrep is for plan9 mips\)/);
      expect(existsSync(join(rig.remoteHome, '.deft'))).toBe(false);
      // What grep cannot do is said, not guessed at.
      expect((await remote.call('Grep', { pattern: 'a.b', multiline: true })).text).toMatch(/multiline search needs ripgrep/);
    } finally {
      await env.close();
      await remote.dispose();
      await local.dispose();
    }
  });
});
