import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { remoteCliRig } from '#test-support/remote-cli';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { workspacePlace } from '#infra/environment/workspace-place';
import { TrustStore } from '#infra/settings/trust';
import { SshEnvironment } from '#infra/environment/ssh/ssh-environment';

// Issue 29, the trust attack end to end: `deft run --remote` on a folder whose path is ALSO a local folder here —
// trusted here, with `.deft/settings.json` allowing every command. The remote sshd sees another folder mounted at that
// path (a mount namespace of its own), so the two are told apart by what a command does where.

const rig = remoteCliRig('deft-remote-trust', { ripgrep: true });

beforeEach(async () => {
  for (const dir of [rig.there, rig.path]) {
    await rm(join(dir, '.deft'), { recursive: true, force: true });
    await rm(join(dir, 'ran.txt'), { force: true });
    await mkdir(join(dir, '.deft'));
  }
});

// The permission layer alone: with the sandbox on there, accept-edits would run a sandboxed command unasked.
const run = (prompt: string) => rig.run(prompt, { mode: 'accept-edits', extra: ['--sandbox', 'off'] });

/** The remote folder there and the local folder at the same path here, each with the word its files are marked with. */
const BOTH_SIDES = () =>
  [
    [rig.there, 'REMOTE'],
    [rig.path, 'LOCAL'],
  ] as const;

const bashStep = () => toolStep(callChunk('Bash', { command: 'touch ran.txt', description: 'touch a file' }));

describe('deft run --remote: trust and rules are the remote folder’s', () => {
  it('a trusted local folder at the same path allowing Bash(*) does not let the remote session run a command', { timeout: 60_000 }, async () => {
    await writeFile(join(rig.path, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(*)'], defaultMode: 'yolo' } }));
    await new TrustStore(rig.home, workspacePlace(rig.path)).trust();
    rig.server.enqueue(bashStep(), textReply('Done.'));
    const result = await run('touch it');
    expect(result.code).toBe(0);
    expect(result.toolResults[0]).toMatch(/needs approval .*nobody can approve it: it did not run/);
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(false);
    expect(existsSync(join(rig.path, 'ran.txt'))).toBe(false);
  });

  it('the remote folder’s own allow rule runs the command there once that folder (host + path) is trusted', { timeout: 60_000 }, async () => {
    await writeFile(join(rig.there, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }));
    // Untrusted: the repository's allow rule is not used.
    rig.server.enqueue(bashStep(), textReply('Done.'));
    const untrusted = await run('touch it');
    expect(untrusted.toolResults[0]).toMatch(/needs approval .*nobody can approve it: it did not run/);
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(false);
    // Trusting the local path changes nothing; trusting the remote folder's key does.
    await new TrustStore(rig.home, workspacePlace(rig.path)).trust();
    rig.server.enqueue(bashStep(), textReply('Done.'));
    await run('touch it');
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(false);
    const trust = JSON.parse(await readFile(join(rig.home, 'trust.json'), 'utf8')) as { folders: Record<string, unknown> };
    trust.folders[rig.remoteId()] = { trusted: true };
    await writeFile(join(rig.home, 'trust.json'), JSON.stringify(trust));
    rig.server.enqueue(bashStep(), textReply('Done.'));
    const trusted = await run('touch it');
    expect(trusted.code).toBe(0);
    expect(trusted.toolResults[0]).not.toMatch(/ERROR/);
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(true);
    expect(existsSync(join(rig.path, 'ran.txt'))).toBe(false);
  });

  it('the remote folder’s deny rule holds even where the local folder’s would allow', { timeout: 60_000 }, async () => {
    await writeFile(join(rig.there, '.deft', 'settings.json'), JSON.stringify({ permissions: { deny: ['Bash(touch *)'] } }));
    await writeFile(join(rig.path, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(touch *)'] } }));
    const trust = { folders: { [rig.remoteId()]: { trusted: true }, [rig.path]: { trusted: true } } };
    await writeFile(join(rig.home, 'trust.json'), JSON.stringify(trust));
    rig.server.enqueue(bashStep(), textReply('Done.'));
    const result = await run('touch it');
    expect(result.toolResults[0]).toMatch(/blocked by the deny rule "Bash\(touch \*\)"/);
    expect(existsSync(join(rig.there, 'ran.txt'))).toBe(false);
  });

  it('a subfolder’s AGENTS.md is the remote folder’s, read there when the agent first touches the subfolder', { timeout: 60_000 }, async () => {
    for (const [dir, who] of BOTH_SIDES()) {
      await rm(join(dir, 'sub'), { recursive: true, force: true });
      await mkdir(join(dir, 'sub'));
      await writeFile(join(dir, 'sub', 'AGENTS.md'), `${who}-NESTED-RULE: use tabs here.\n`);
      await writeFile(join(dir, 'sub', 'file.txt'), `${who} file\n`);
    }
    rig.server.enqueue(toolStep(callChunk('Read', { path: 'sub/file.txt' })), textReply('Read it.'));
    const result = await run('read sub/file.txt');
    expect(result.code).toBe(0);
    expect(result.toolResults[0]).toContain('REMOTE file');
    const told = JSON.stringify(rig.server.requests.at(-1)!.body);
    expect(told).toContain('REMOTE-NESTED-RULE: use tabs here.');
    expect(told).not.toContain('LOCAL-NESTED-RULE');
    expect(result.stderr).not.toMatch(/AGENTS\.md/);
  });

  it('a folder deep in a repository there gets the repository’s top AGENTS.md too (found by git there), never the local one', { timeout: 60_000 }, async () => {
    for (const [dir, who] of BOTH_SIDES()) {
      await rm(join(dir, 'mono'), { recursive: true, force: true });
      await mkdir(join(dir, 'mono', 'packages', 'app'), { recursive: true });
      await writeFile(join(dir, 'mono', 'AGENTS.md'), `${who}-MONO-TOP-RULE: run the tests from the top.\n`);
      await writeFile(join(dir, 'mono', 'packages', 'app', 'AGENTS.md'), `${who}-APP-RULE: this is the app.\n`);
    }
    execFileSync('git', ['init', '-q'], { cwd: join(rig.there, 'mono') });
    execFileSync('git', ['init', '-q'], { cwd: join(rig.path, 'mono') });
    try {
      rig.server.enqueue(textReply('Hello.'));
      const result = await rig.run('hello', { mode: 'accept-edits', extra: ['--sandbox', 'off'], folder: join(rig.path, 'mono', 'packages', 'app') });
      expect(result.code).toBe(0);
      const system = JSON.stringify(rig.server.requests.at(-1)!.body);
      expect(system).toContain('REMOTE-MONO-TOP-RULE: run the tests from the top.');
      expect(system).toContain('REMOTE-APP-RULE: this is the app.');
      expect(system.indexOf('REMOTE-MONO-TOP-RULE')).toBeLessThan(system.indexOf('REMOTE-APP-RULE'));
      expect(system).not.toContain('LOCAL-');
    } finally {
      for (const dir of [rig.there, rig.path]) await rm(join(dir, 'mono'), { recursive: true, force: true });
    }
  });

  it('a text-only turn starts no process there where git’s answer cannot change the instructions: no repository, or the folder is its top', {
    timeout: 90_000,
  }, async () => {
    const marks = await mkdtemp('/var/tmp/deft-rootmarks-');
    await writeFile(join(marks, 'evil.sh'), `#!/bin/sh\ntouch "${marks}/ran-$1"\n`);
    await chmod(join(marks, 'evil.sh'), 0o755);
    await rm(join(rig.there, 'repo'), { recursive: true, force: true });
    await rm(join(rig.there, 'plain'), { recursive: true, force: true });
    await mkdir(join(rig.there, 'repo', 'deep'), { recursive: true });
    await mkdir(join(rig.there, 'plain'), { recursive: true });
    await writeFile(join(rig.there, 'repo', 'AGENTS.md'), 'REPO-TOP-RULE: top.\n');
    await writeFile(join(rig.there, 'repo', 'deep', 'AGENTS.md'), 'REPO-DEEP-RULE: deep.\n');
    await writeFile(join(rig.there, 'plain', 'AGENTS.md'), 'PLAIN-RULE: plain.\n');
    execFileSync('git', ['init', '-q'], { cwd: join(rig.there, 'repo') });
    // A hostile repository: what its config names must not run when git is asked where its top is.
    execFileSync('git', ['config', 'core.fsmonitor', `${marks}/evil.sh fsmonitor`], { cwd: join(rig.there, 'repo') });
    execFileSync('git', ['config', 'core.hooksPath', marks], { cwd: join(rig.there, 'repo') });
    const turn = async (folder: string) => {
      // The folder's first turn makes its checkpoint store there (git, once): the next one is the one counted.
      rig.server.enqueue(textReply('Hello.'));
      expect((await rig.run('hello', { mode: 'accept-edits', extra: ['--sandbox', 'off'], folder })).code).toBe(0);
      const before = SshEnvironment.processUsage.execChannels;
      rig.server.enqueue(textReply('Hello.'));
      const result = await rig.run('hello', { mode: 'accept-edits', extra: ['--sandbox', 'off'], folder });
      expect(result.code, result.stderr).toBe(0);
      return { channels: SshEnvironment.processUsage.execChannels - before, system: JSON.stringify(rig.server.requests.at(-1)!.body) };
    };
    try {
      // The folder is the repository's top, or in none: no process at all there (everything over SFTP).
      const top = await turn(join(rig.path, 'repo'));
      expect(top.system).toContain('REPO-TOP-RULE: top.');
      expect(top.channels).toBe(0);
      const plain = await turn(join(rig.path, 'plain'));
      expect(plain.system).toContain('PLAIN-RULE: plain.');
      expect(plain.channels).toBe(0);
      // Deep in it: git there says where the top is (one process, the helper), its config's programs not run.
      const deep = await turn(join(rig.path, 'repo', 'deep'));
      expect(deep.system).toContain('REPO-TOP-RULE: top.');
      expect(deep.system).toContain('REPO-DEEP-RULE: deep.');
      expect(deep.channels).toBe(1);
      // A `.git` that is not a repository above the folder: git says there is no top; only the folder's own rules.
      await rm(join(rig.there, 'repo', '.git'), { recursive: true, force: true });
      await writeFile(join(rig.there, 'repo', '.git'), 'not a repository\n');
      const fake = await turn(join(rig.path, 'repo', 'deep'));
      expect(fake.system).toContain('REPO-DEEP-RULE: deep.');
      expect(fake.system).not.toContain('REPO-TOP-RULE');
      expect(await readdir(marks)).toEqual(['evil.sh']);
    } finally {
      for (const name of ['repo', 'plain']) await rm(join(rig.there, name), { recursive: true, force: true });
    }
  });

  it('the system prompt holds the user’s own AGENTS.md (here) and the remote folder’s AGENTS.md and CLAUDE.md (there), never the local folder’s, nor a secret a link there leads to', {
    timeout: 60_000,
  }, async () => {
    await writeFile(join(rig.home, 'AGENTS.md'), 'USER-RULE: answer briefly.\n');
    await writeFile(join(rig.there, 'AGENTS.md'), 'REMOTE-ROOT-RULE: use pnpm.\n');
    await writeFile(join(rig.there, 'CLAUDE.md'), 'REMOTE-CLAUDE-RULE: run make check.\n');
    await writeFile(join(rig.path, 'AGENTS.md'), 'LOCAL-ROOT-RULE: use npm.\n');
    try {
      rig.server.enqueue(textReply('Hello.'));
      const result = await run('hello');
      expect(result.code).toBe(0);
      const system = JSON.stringify(rig.server.requests.at(-1)!.body);
      expect(system).toContain('USER-RULE: answer briefly.');
      expect(system).toContain('REMOTE-ROOT-RULE: use pnpm.');
      expect(system).toContain('REMOTE-CLAUDE-RULE: run make check.');
      expect(system).not.toContain('LOCAL-ROOT-RULE');
      // A link there to a secret file is not read into the prompt.
      await rm(join(rig.there, 'CLAUDE.md'));
      await writeFile(join(rig.there, '.env'), 'API_KEY=REMOTE-SECRET\n');
      await symlink('.env', join(rig.there, 'CLAUDE.md'));
      rig.server.enqueue(textReply('Hello.'));
      await run('hello again');
      const again = JSON.stringify(rig.server.requests.at(-1)!.body);
      expect(again).toContain('REMOTE-ROOT-RULE: use pnpm.');
      expect(again).not.toContain('REMOTE-SECRET');
    } finally {
      for (const file of [
        join(rig.home, 'AGENTS.md'),
        join(rig.there, 'AGENTS.md'),
        join(rig.there, 'CLAUDE.md'),
        join(rig.there, '.env'),
        join(rig.path, 'AGENTS.md'),
      ])
        await rm(file, { force: true });
    }
  });
});
