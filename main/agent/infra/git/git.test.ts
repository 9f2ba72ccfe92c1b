import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { GitError, absolutePath, gitBinary, hardenedArgv, hardenedEnv, runGit, runGitInRepository } from './git';

// A repository whose config, attributes and hooks each try to run a program that leaves a marker file.
let repo: string;
let markers: string;
const plain = (args: string[], cwd = repo) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
const marker = (name: string) => `sh -c 'touch "${join(markers, name)}"; cat'`;
const planted = () => ['fsmonitor', 'clean', 'process', 'smudge', 'hook', 'external', 'textconv'].filter((name) => existsSync(join(markers, name)));

beforeEach(async () => {
  const root = await tempDir('deft-git-');
  repo = join(root, 'repo');
  markers = join(root, 'markers');
  await mkdir(markers);
  await mkdir(repo);
  plain(['init', '-q', '-b', 'main']);
  plain(['config', 'user.email', 'a@b.c']);
  plain(['config', 'user.name', 'A']);
  await writeFile(join(repo, 'a.txt'), 'one\n');
  await writeFile(join(repo, 'b.bin'), 'one\n');
  plain(['add', '.']);
  plain(['commit', '-qm', 'first']);
  // Everything below would run a program if git obeyed it.
  plain(['config', 'core.fsmonitor', `touch "${join(markers, 'fsmonitor')}"; true`]);
  plain(['config', 'filter.evil.clean', marker('clean')]);
  plain(['config', 'filter.evil.smudge', marker('smudge')]);
  plain(['config', 'filter.other.process', `touch "${join(markers, 'process')}"`]);
  plain(['config', 'diff.external', `touch "${join(markers, 'external')}"`]);
  plain(['config', 'diff.evil.textconv', `touch "${join(markers, 'textconv')}"; cat`]);
  await writeFile(join(repo, '.gitattributes'), '*.txt filter=evil diff=evil\n*.bin filter=other\n');
  await writeFile(join(repo, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\ntouch "${join(markers, 'hook')}"\n`);
  await chmod(join(repo, '.git', 'hooks', 'pre-commit'), 0o755);
  await writeFile(join(repo, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\ntouch "${join(markers, 'hook')}"\n`);
  await chmod(join(repo, '.git', 'hooks', 'post-index-change'), 0o755);
  // Modified files, so status re-hashes them (through the filters) and diff has something to show.
  await writeFile(join(repo, 'a.txt'), 'two\n');
  await writeFile(join(repo, 'b.bin'), 'two\n');
});

describe("Deft's hardened git", () => {
  it('plain git runs what the repository says (the premise of these tests)', () => {
    // The planted programs do not speak git's filter protocol: git fails, after running them.
    const tryPlain = (args: string[]) => {
      try {
        plain(args);
      } catch {
        // Expected.
      }
    };
    tryPlain(['status', '--porcelain']);
    tryPlain(['diff']);
    expect(planted()).toEqual(expect.arrayContaining(['fsmonitor', 'clean', 'process']));
  });

  it('status, diff, log and commit run no fsmonitor, filter, hook, external diff or textconv', async () => {
    const status = await runGitInRepository({ cwd: repo, args: ['status', '--porcelain=v1', '--branch'] });
    expect(status.stdout.toString()).toContain(' M a.txt');
    await runGitInRepository({ cwd: repo, args: ['diff'] });
    await runGitInRepository({ cwd: repo, args: ['log', '-p', '-1'] });
    await runGitInRepository({ cwd: repo, args: ['add', '-A'] });
    await runGitInRepository({ cwd: repo, args: ['-c', 'user.email=a@b.c', '-c', 'user.name=A', 'commit', '-qm', 'second'] });
    await runGitInRepository({ cwd: repo, args: ['checkout', '-q', 'HEAD~1', '--', 'a.txt'] });
    expect(planted()).toEqual([]);
  });

  it("ignores the caller's GIT_* variables, system and global config, and loader variables", async () => {
    const saved = { ...process.env };
    const home = join(markers, 'home');
    await mkdir(home);
    await writeFile(join(home, '.gitconfig'), `[core]\n\tfsmonitor = touch "${join(markers, 'fsmonitor')}"; true\n`);
    plain(['config', '--unset', 'core.fsmonitor']);
    try {
      Object.assign(process.env, { GIT_DIR: '/nonexistent', GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='touch x'", HOME: home, LD_PRELOAD: '/tmp/evil.so' });
      const env = hardenedEnv();
      expect(env).not.toHaveProperty('GIT_DIR');
      expect(env).not.toHaveProperty('GIT_CONFIG_PARAMETERS');
      expect(env).not.toHaveProperty('LD_PRELOAD');
      expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', HOME: home });
      await runGitInRepository({ cwd: repo, args: ['status', '--porcelain'] });
      expect(planted()).toEqual([]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it('never takes git from a relative PATH entry (the folder it runs in)', async () => {
    await writeFile(join(repo, 'git'), `#!/bin/sh\ntouch "${join(markers, 'hook')}"\n`);
    await chmod(join(repo, 'git'), 0o755);
    expect(absolutePath(['.', 'node_modules/.bin', '/usr/bin', ''].join(delimiter))).toBe('/usr/bin');
    expect(absolutePath(['/usr/bin', join(repo, 'bin')].join(delimiter), repo)).toBe('/usr/bin');
    const saved = process.env.PATH;
    process.env.PATH = `.${delimiter}${saved}`;
    try {
      expect(gitBinary()).not.toBe('./git');
      await runGitInRepository({ cwd: repo, args: ['status'] });
    } finally {
      process.env.PATH = saved;
    }
    expect(planted()).toEqual([]);
  });

  it('refuses settings that would undo the hardening, and names the command that failed', async () => {
    expect(() => hardenedArgv(['status'], ['core.fsmonitor=true'])).toThrow(/would undo/);
    expect(() => hardenedArgv(['status'], ['filter.x.clean=evil'])).toThrow(/would undo/);
    expect(() => hardenedArgv(['status'], ['protocol.file.allow=always'])).toThrow(/would undo/);
    expect(hardenedArgv(['diff'], ['filter.x.clean=', 'filter.x.required=false'])).toEqual(
      expect.arrayContaining(['--no-ext-diff', '--no-textconv', 'filter.x.clean=']),
    );
    const failure = await runGit({ cwd: repo, args: ['rev-parse', 'no-such-ref'] }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitError);
    expect((failure as GitError).message).toMatch(/git rev-parse failed/);
  });

  it('uses no transport: a fetch from a local path is refused', async () => {
    const other = join(markers, 'other');
    plain(['clone', '-q', repo, other], markers);
    const fetched = await runGit({ cwd: other, args: ['fetch', 'origin'] }).catch((error: unknown) => error);
    expect(fetched).toBeInstanceOf(GitError);
    expect(await readFile(join(other, '.git', 'config'), 'utf8')).toContain('[remote "origin"]');
  });
});

afterEach(async () => {
  await rm(join(repo, '..'), { recursive: true, force: true });
});
