import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { type HostSocket, openHostSocket } from '#test-support/host-socket';
import { freshRemoteRepository, remoteCliRig, remoteCore } from '#test-support/remote-cli';
import { defaultCapabilities } from '../../agent/capabilities';
import { createNodeCore } from '../compose';
import { webHost } from '../hosts';
import { remoteWorktreeCores } from '../remote-worktree-cores';
import { startWebHost } from '../web/server';
import { WorktreeCores } from '../worktree-cores';
import { openRemoteForCli, remoteCapabilities } from '../remote-folder';

// Issues 29 + 30: a session in a git worktree of a REMOTE folder. The sshd runs in a mount namespace of its own where
// the remote folder (`there`, a git repository) shows at `path` and the remote user's home is `remoteHome`: the
// worktree is made on the remote machine under ~/.deft/worktrees there (so in `remoteHome`), never in this machine's
// Deft home nor in the repository's working tree; git runs there, with Deft's hardening.

const rig = remoteCliRig('deft-remote-wt');
const cli = (...args: string[]) => rig.cli(args);

/** git on the repository as this machine sees it (`there`): only to look, never what Deft runs. */
const look = (args: readonly string[]) => execFileSync('git', ['-C', rig.there, ...args], { encoding: 'utf8' });

/** The remote machine's folder of this repository's worktrees, as this machine sees it (there is exactly one). */
async function worktreesThere(): Promise<string> {
  const root = join(rig.remoteHome, '.deft', 'worktrees');
  const dirs = await readdir(root);
  expect(dirs).toHaveLength(1);
  return join(root, dirs[0]!);
}

beforeEach(async () => {
  const git = await freshRemoteRepository(rig);
  await writeFile(join(rig.there, '.env.example'), 'PORT=1\n');
  await writeFile(join(rig.there, '.gitignore'), '.env.example\n');
  git('add', '.gitignore');
  git('commit', '-q', '-m', 'ignore .env.example');
  // This machine's folder of the same path (its notes.txt): never looked at, never changed.
  // worktree.copy in the user's settings (this machine's Deft home): copied on the remote machine.
  await writeFile(join(rig.home, 'settings.json'), JSON.stringify({ worktree: { copy: ['.env.example'] } }));
});

describe('deft run --remote --worktree', () => {
  it('runs the session in a worktree made on the remote machine; the main checkout is untouched; merge, a conflict, discard', {
    timeout: 180_000,
  }, async () => {
    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'blue' })),
      // A command runs in the worktree there too (in the remote OS sandbox when there is one): its cwd is the worktree.
      toolStep(callChunk('Bash', { command: 'pwd > where.txt && git rev-parse --abbrev-ref HEAD >> where.txt', description: 'where am I' })),
      textReply('Blue.'),
    );
    const first = await rig.run('paint it blue', { extra: ['--worktree=blue'] });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('Blue.\n');
    const dir = await worktreesThere();
    expect(first.stderr).toContain(`deft: worktree blue (branch deft/blue, from main) at `);
    expect(first.stderr).toContain('deft: copied into it: .env.example');
    // The worktree is on the remote machine, under Deft's folder there: the edit landed there.
    expect(await readFile(join(dir, 'blue', 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    expect(await readFile(join(dir, 'blue', '.env.example'), 'utf8')).toBe('PORT=1\n');
    expect(await readFile(join(dir, 'blue', 'where.txt'), 'utf8')).toMatch(/^\/\S+\/\.deft\/worktrees\/\S+\/blue\ndeft\/blue\n$/);
    expect(JSON.parse(await readFile(join(dir, 'blue.json'), 'utf8'))).toMatchObject({
      name: 'blue',
      branch: 'deft/blue',
      baseBranch: 'main',
      copied: ['.env.example'],
    });
    // The remote main checkout is untouched; nothing here: no worktree in this Deft home, the local folder as it was.
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: red\n');
    expect(look(['status', '--porcelain'])).toBe('');
    expect(existsSync(join(rig.home, 'worktrees'))).toBe(false);
    expect(await readdir(rig.path)).toEqual(['notes.txt']);
    // The session is kept here, under the worktree's own ssh:// key.
    const sessions = JSON.parse(await readFile(join(rig.home, 'sessions', (await readdir(join(rig.home, 'sessions')))[0]!, 'workspace.json'), 'utf8')) as {
      path: string;
    };
    expect(sessions.path).toMatch(/^ssh:\/\/.*\/\.deft\/worktrees\/.*\/blue$/);
    // Its checkpoints are those of the worktree there (its own store on that machine), and it resumes there.
    expect(first.stderr).not.toContain('checkpoint');
    const there = (JSON.parse(await readFile(join(dir, 'blue.json'), 'utf8')) as { path: string }).path;
    const checkpoints = await cli('checkpoints', '--remote', rig.target(there), '--continue', '--json');
    expect(checkpoints.code, checkpoints.stderr).toBe(0);
    const prompts = (JSON.parse(checkpoints.stdout) as { prompts: Array<{ index: number; text: string; changedFiles: number }> }).prompts;
    expect(prompts.filter((p) => p.index > 0).map((p) => [p.text, p.changedFiles])).toEqual([['paint it blue', 2]]);

    // A second one from the same base changes the same line.
    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'green' })),
      textReply('Green.'),
    );
    const second = await rig.run('paint it green', { extra: ['--worktree=green'] });
    expect(second.code, second.stderr).toBe(0);
    expect(await readFile(join(dir, 'green', 'notes.txt'), 'utf8')).toBe('colour: green\n');
    expect(await readFile(join(dir, 'blue', 'notes.txt'), 'utf8')).toBe('colour: blue\n');

    const listed = await cli('worktrees', '--remote', rig.target(), '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const list = JSON.parse(listed.stdout) as { worktrees: Array<{ name: string; changedFiles: string[]; sessions: unknown[]; dirty: boolean }> };
    expect(list.worktrees.map((w) => [w.name, w.changedFiles, w.sessions.length, w.dirty])).toEqual([
      ['blue', ['notes.txt', 'where.txt'], 1, true],
      ['green', ['notes.txt'], 1, true],
    ]);
    const table = await cli('worktrees', '--remote', rig.target());
    expect(table.stdout).toMatch(/blue\s+deft\/blue\s+main\s+2\s+0\s+0\s+1\s+done/);

    const merged = await cli('worktrees', 'merge', 'blue', '--remote', rig.target());
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^Merged blue onto main \([0-9a-f]{12}\): notes\.txt, where\.txt\n$/);
    expect(look(['show', 'main:notes.txt'])).toBe('colour: blue\n');
    // The checkout that has main is fast-forwarded there, as locally; the copied file never came back.
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    expect(look(['status', '--porcelain'])).toBe('');
    expect(look(['log', '-1', '--format=%an %s', 'main'])).toBe("Remote Dev Merge branch 'deft/blue' (Deft worktree)\n");

    const conflict = await cli('worktrees', 'merge', 'green', '--remote', rig.target());
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('deft: merging green onto main conflicts in: notes.txt. Nothing was changed.');
    expect(conflict.stderr).toMatch(/on .*: cd \/\S+\/\.deft\/worktrees\/\S+\/green && git merge main/);
    expect(look(['show', 'main:notes.txt'])).toBe('colour: blue\n');
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    // Nothing lost in the worktree: its change is committed on its branch.
    expect(look(['show', 'deft/green:notes.txt'])).toBe('colour: green\n');

    const discarded = await cli('worktrees', 'discard', 'green', '--delete-branch', '--remote', rig.target());
    expect(discarded.code, discarded.stderr).toBe(0);
    expect(discarded.stdout).toMatch(/^Removed .*\/green and its branch\.\n$/);
    expect(existsSync(join(dir, 'green'))).toBe(false);
    expect(existsSync(join(dir, 'green.json'))).toBe(false);
    expect(look(['branch', '--list', 'deft/green'])).toBe('');
    expect(look(['worktree', 'list', '--porcelain'])).not.toContain('green');
    const after = JSON.parse((await cli('worktrees', '--remote', rig.target(), '--json')).stdout) as { worktrees: Array<{ name: string }> };
    expect(after.worktrees.map((w) => w.name)).toEqual(['blue']);
  });

  it('a hostile remote repository: its fsmonitor, hooks, filter and merge drivers never run', { timeout: 120_000 }, async () => {
    const marks = await mkdtemp('/var/tmp/deft-wt-marks-');
    const evil = join(marks, 'evil.sh');
    await writeFile(evil, `#!/bin/sh\ntouch "${marks}/ran-$1"\ncat\n`);
    await chmod(evil, 0o755);
    const git = (...args: string[]) => execFileSync('git', ['-C', rig.there, ...args], { stdio: 'pipe' });
    await writeFile(join(rig.there, '.gitattributes'), '*.txt filter=evil merge=evil diff=evil\n');
    git('add', '.gitattributes');
    git('commit', '-q', '-m', 'attributes');
    // Planted after the set-up's own commit: from here on, only what Deft runs could run them.
    const hooks = join(rig.there, '.git', 'hooks');
    await mkdir(hooks, { recursive: true });
    for (const hook of ['post-checkout', 'pre-commit', 'post-commit', 'post-merge', 'reference-transaction', 'pre-merge-commit', 'post-index-change']) {
      await writeFile(join(hooks, hook), `#!/bin/sh\ntouch "${marks}/ran-hook-${hook}"\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    git('config', 'core.fsmonitor', `${evil} fsmonitor`);
    git('config', 'core.hooksPath', hooks);
    git('config', 'filter.evil.clean', `${evil} clean`);
    git('config', 'filter.evil.smudge', `${evil} smudge`);
    git('config', 'filter.evil.process', `${evil} process`);
    git('config', 'filter.evil.required', 'true');
    git('config', 'merge.evil.driver', `${evil} merge %O %A %B`);
    git('config', 'diff.external', `${evil} diff`);
    git('config', 'core.sshCommand', `${evil} ssh`);
    git('config', 'gpg.program', `${evil} gpg`);
    git('config', 'commit.gpgSign', 'true');
    git('config', 'core.editor', `${evil} editor`);

    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'blue' })),
      textReply('Blue.'),
    );
    const ran = await rig.run('paint it blue', { extra: ['--worktree=hostile'] });
    expect(ran.code, ran.stderr).toBe(0);
    const dir = await worktreesThere();
    expect(await readFile(join(dir, 'hostile', 'notes.txt'), 'utf8')).toBe('colour: blue\n');
    // A second one from the same base changing the same line: merging it would start the merge driver, were it not switched off.
    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'green' })),
      textReply('Green.'),
    );
    expect((await rig.run('paint it green', { extra: ['--worktree=hostile2'] })).code).toBe(0);
    expect(await readFile(join(dir, 'hostile2', 'notes.txt'), 'utf8')).toBe('colour: green\n');
    expect((await cli('worktrees', '--remote', rig.target())).code).toBe(0);
    const merged = await cli('worktrees', 'merge', 'hostile', '--remote', rig.target());
    expect(merged.code, merged.stderr).toBe(0);
    expect(look(['show', 'main:notes.txt'])).toBe('colour: blue\n');
    const conflict = await cli('worktrees', 'merge', 'hostile2', '--remote', rig.target());
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain('conflicts in: notes.txt');
    for (const name of ['hostile', 'hostile2']) {
      const discarded = await cli('worktrees', 'discard', name, '--delete-branch', '--remote', rig.target());
      expect(discarded.code, discarded.stderr).toBe(0);
    }
    expect(await readdir(marks)).toEqual(['evil.sh']);
  });

  it('a worktree name with "..", a slash or shell characters is refused before anything is made there', { timeout: 120_000 }, async () => {
    const marks = await mkdtemp('/var/tmp/deft-wt-names-');
    const asked = rig.server.requests.length;
    const names = ['a..b', '../escape', 'x/y', `$(touch ${marks}/ran)`, 'a;touch x', '`id`', '-rf', '.hidden', "it's"];
    for (const name of names) {
      const run = await rig.run('hello', { extra: [`--worktree=${name}`] });
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toContain('is not a worktree name');
      const created = await cli('worktrees', 'create', name, '--remote', rig.target());
      expect(created.code, name).not.toBe(0);
      const merged = await cli('worktrees', 'merge', name, '--remote', rig.target());
      expect(merged.code, name).not.toBe(0);
      const discarded = await cli('worktrees', 'discard', name, '--remote', rig.target());
      expect(discarded.code, name).not.toBe(0);
    }
    // A base is passed to git there as one argument, never through a shell.
    for (const base of [`$(touch ${marks}/ran-base)`, `main;touch${'${IFS}'}${marks}/ran-semi`, '`id`', "main'"]) {
      const run = await rig.run('hello', { extra: ['--worktree=ok', `--worktree-base=${base}`] });
      expect(run.code, base).toBe(2);
      expect(run.stderr, base).toContain('is not a branch, tag or commit');
    }
    expect(rig.server.requests).toHaveLength(asked);
    expect(existsSync(join(rig.remoteHome, '.deft', 'worktrees')) ? await readdir(join(rig.remoteHome, '.deft', 'worktrees')) : []).toEqual([]);
    expect(await readdir(marks)).toEqual([]);
    expect(look(['branch', '--list']).trim()).toBe('* main');
  });

  it('a remote worktree session’s meta names its worktree; deleting the session removes the worktree there when nothing would be lost, keeps it otherwise', {
    timeout: 180_000,
  }, async () => {
    // A hostile repository there: its fsmonitor and hooks must not run while the session's worktree is released.
    const marks = await mkdtemp('/var/tmp/deft-wt-release-');
    const evil = join(marks, 'evil.sh');
    await writeFile(evil, `#!/bin/sh\ntouch "${marks}/ran-$1"\n`);
    await chmod(evil, 0o755);
    const hooks = join(rig.there, '.git', 'hooks');
    await mkdir(hooks, { recursive: true });
    for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change']) {
      await writeFile(join(hooks, hook), `#!/bin/sh\ntouch "${marks}/ran-hook-${hook}"\n`);
      await chmod(join(hooks, hook), 0o755);
    }
    execFileSync('git', ['-C', rig.there, 'config', 'core.fsmonitor', `${evil} fsmonitor`]);
    execFileSync('git', ['-C', rig.there, 'config', 'core.hooksPath', hooks]);

    rig.server.enqueue(textReply('Nothing to do.'));
    const tidy = await rig.run('just look', { extra: ['--worktree=tidy'] });
    expect(tidy.code, tidy.stderr).toBe(0);
    rig.server.enqueue(
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'teal' })),
      textReply('Teal.'),
    );
    const dirty = await rig.run('paint it teal', { extra: ['--worktree=dirty'] });
    expect(dirty.code, dirty.stderr).toBe(0);
    const dir = await worktreesThere();
    const pathThere = (name: string) => (JSON.parse(execFileSync('cat', [join(dir, `${name}.json`)], { encoding: 'utf8' })) as { path: string }).path;

    // Each session's meta names its worktree, as a local worktree session's does (the sidebar shows its branch).
    const metaOf = async (name: string) => {
      const groups = await readdir(join(rig.home, 'sessions'));
      for (const group of groups) {
        const where = JSON.parse(await readFile(join(rig.home, 'sessions', group, 'workspace.json'), 'utf8')) as { path: string };
        if (!where.path.endsWith(`/${name}`)) continue;
        const [id] = (await readdir(join(rig.home, 'sessions', group))).filter((f) => /^\d{8}-/.test(f));
        return JSON.parse(await readFile(join(rig.home, 'sessions', group, id!, 'meta.json'), 'utf8')) as { id: string; worktree?: unknown };
      }
      throw new Error(`no session of ${name}`);
    };
    for (const name of ['tidy', 'dirty'])
      expect((await metaOf(name)).worktree).toEqual({ name, branch: `deft/${name}`, baseBranch: 'main', repoRoot: rig.path });

    const coreOn = (name: string) => remoteCore(rig, { folder: pathThere(name) });
    // The window's list of a remote worktree's sessions carries it too.
    const onTidy = await coreOn('tidy');
    try {
      const { sessions } = await onTidy.core.handlers.listSessions({});
      expect(sessions.map((s) => s.worktree?.branch)).toEqual(['deft/tidy']);
      // A new session there is recorded in the same worktree.
      const made = await onTidy.core.handlers.createSession({});
      expect(made.session.worktree).toEqual({ name: 'tidy', branch: 'deft/tidy', baseBranch: 'main', repoRoot: rig.path });
      // Another session ran there: deleting this one keeps the worktree.
      const first = await onTidy.core.handlers.deleteSession({ sessionId: made.session.id });
      expect(first.worktree).toMatchObject({ removed: false, reason: expect.stringContaining('1 other session ran there') });
      expect(existsSync(join(dir, 'tidy'))).toBe(true);
      // Its last session: nothing would be lost, so the worktree, its record and its branch go — there.
      const last = await onTidy.core.handlers.deleteSession({ sessionId: sessions[0]!.id });
      expect(last.worktree).toMatchObject({ name: 'tidy', branch: 'deft/tidy', removed: true, reason: expect.stringContaining('removed with its branch') });
    } finally {
      await onTidy.close();
    }
    expect(existsSync(join(dir, 'tidy'))).toBe(false);
    expect(existsSync(join(dir, 'tidy.json'))).toBe(false);
    expect(look(['branch', '--list', 'deft/tidy'])).toBe('');
    expect(look(['worktree', 'list', '--porcelain'])).not.toContain('/tidy');

    // Uncommitted changes: kept, as locally, and said why; the change is still there.
    const onDirty = await coreOn('dirty');
    try {
      const deleted = await onDirty.core.handlers.deleteSession({ sessionId: (await metaOf('dirty')).id });
      expect(deleted.worktree).toMatchObject({ name: 'dirty', removed: false, reason: expect.stringContaining('uncommitted changes (1 changed file)') });
    } finally {
      await onDirty.close();
    }
    expect(await readFile(join(dir, 'dirty', 'notes.txt'), 'utf8')).toBe('colour: teal\n');
    expect(look(['branch', '--list', 'deft/dirty'])).toBe('+ deft/dirty\n');
    expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: red\n');
    expect(await readdir(marks)).toEqual(['evil.sh']);
  });

  it('a hostile remote: a worktree folder swapped for a link, or a record naming another folder, is never removed through', { timeout: 180_000 }, async () => {
    for (const name of ['keep', 'swapped', 'edited']) {
      const made = await cli('worktrees', 'create', name, '--remote', rig.target());
      expect(made.code, made.stderr).toBe(0);
    }
    const dir = await worktreesThere();
    // Work not committed in "keep": what a removal through a link would destroy.
    await writeFile(join(dir, 'keep', 'precious.txt'), 'mine\n');
    // "swapped"'s folder replaced by a link to "keep" (as the remote machine sees it: its home is this user's home there).
    const remoteDir = join(userInfo().homedir, '.deft', 'worktrees', dir.split('/').pop()!);
    await rm(join(dir, 'swapped'), { recursive: true, force: true });
    await symlink(join(remoteDir, 'keep'), join(dir, 'swapped'));
    const swapped = await cli('worktrees', 'discard', 'swapped', '--delete-branch', '--remote', rig.target());
    expect(swapped.code).not.toBe(0);
    expect(swapped.stderr).toContain('is not a folder (a link, or a file, was put there): nothing was removed');
    // Nor is git run through it: "branch only" and merge would commit "keep"'s work on another branch.
    const branched = await cli('worktrees', 'branch', 'swapped', '--remote', rig.target());
    expect(branched.code).not.toBe(0);
    expect(branched.stderr).toContain('was put there): nothing was committed or removed');
    const merged = await cli('worktrees', 'merge', 'swapped', '--remote', rig.target());
    expect(merged.code).not.toBe(0);
    expect(merged.stderr).toContain('was put there): nothing was merged');
    // "edited"'s record edited to name "keep"'s folder.
    const record = JSON.parse(await readFile(join(dir, 'edited.json'), 'utf8')) as { path: string };
    await writeFile(join(dir, 'edited.json'), JSON.stringify({ ...record, path: join(remoteDir, 'keep') }));
    const edited = await cli('worktrees', 'discard', 'edited', '--delete-branch', '--remote', rig.target());
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toContain('names another folder');
    // Nothing of "keep" was touched, nor the link's own record.
    expect(await readFile(join(dir, 'keep', 'precious.txt'), 'utf8')).toBe('mine\n');
    // Its work not committed by anything run through the link: its branch is still where it was made (main).
    expect(look(['rev-parse', 'deft/keep'])).toBe(look(['rev-parse', 'main']));
    expect(look(['worktree', 'list', '--porcelain'])).toContain(`${remoteDir}/keep\n`);
    expect(look(['branch', '--list', 'deft/keep'])).toBe('+ deft/keep\n');
    expect((await lstat(join(dir, 'swapped'))).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'swapped.json'))).toBe(true);
  });

  it('the web host opens a remote folder’s worktree as a core of its own (by name, a connection of its own there): its session runs in the worktree there', {
    timeout: 180_000,
  }, async () => {
    const env = { HOME: rig.userHome, USER: rig.sshd.username };
    const remote = await openRemoteForCli({ host: '127.0.0.1', port: rig.sshd.port, user: rig.sshd.username, path: rig.path }, env);
    const coreFor = (folder: RemoteFolder) =>
      createNodeCore({
        workspace: folder.workspace,
        environment: folder.environment,
        workspaceId: folder.id,
        host: webHost,
        env: { DEFT_HOME: rig.home },
        providerOverrides: { baseUrl: rig.server.baseUrl, model: 'm' },
        capabilities: remoteCapabilities(defaultCapabilities),
        openFolder: async () => 'here' as const,
      });
    const main = coreFor(remote);
    const opened: string[] = [];
    const trees = remoteWorktreeCores({
      home: rig.home,
      remote: () => remote,
      open: async (spec) => (opened.push(spec.path), openRemoteForCli(spec, env)),
      coreFor,
    });
    const cores = new WorktreeCores({ ...trees });
    const renderer = await mkdtemp('/var/tmp/deft-renderer-');
    await mkdir(join(renderer, 'assets'));
    await writeFile(join(renderer, 'index.html'), '<!doctype html><title>Deft</title>');
    const host = await startWebHost({ core: main, rendererDir: renderer, token: 't', log: () => {}, worktreeCore: (name) => cores.open(name) });
    const page = (query: string) => openHostSocket(host.port, 't', query);
    let id = 0;
    const ask = async (p: HostSocket, name: string, input: unknown) => {
      const asked = ++id;
      p.ws.send(JSON.stringify({ id: asked, name, input }));
      await vi.waitFor(() => expect(p.messages.some((m) => m.id === asked)).toBe(true), { timeout: 30_000 });
      const reply = p.messages.find((m) => m.id === asked)!.reply as { ok: boolean; result?: unknown; error?: unknown };
      expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
      return reply.result as Record<string, unknown>;
    };
    try {
      const made = await main.handlers.createWorktree({ name: 'side' });
      expect((await main.handlers.createWorktree({ name: 'evil' })).worktree.name).toBe('evil');
      expect(await main.handlers.openWorktree({ name: 'side' })).toEqual({ opened: true, here: true, path: made.worktree.path });
      const dir = await worktreesThere();
      // The page switches to it by name: the worktree's own core, on the worktree's folder there.
      const there = await page('&worktree=side');
      await vi.waitFor(() => expect(there.messages[0]).toEqual({ view: { worktree: { name: 'side', branch: 'deft/side' } } }), { timeout: 30_000 });
      expect(opened).toEqual([made.worktree.path]);
      expect(await ask(there, 'getWorkspace', {})).toMatchObject({ path: made.worktree.path });
      // A session there is a worktree session (the sidebar shows its branch), and its turn works in the worktree there.
      const { session } = (await ask(there, 'createSession', {})) as { session: { id: string; worktree: unknown } };
      expect(session.worktree).toEqual({ name: 'side', branch: 'deft/side', baseBranch: 'main', repoRoot: rig.path });
      rig.server.enqueue(
        toolStep(callChunk('Read', { path: 'notes.txt' })),
        toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'red', new_string: 'amber' })),
        textReply('Amber.'),
      );
      await ask(there, 'setPermissionMode', { sessionId: session.id, mode: 'yolo' });
      await ask(there, 'sendPrompt', { sessionId: session.id, text: 'paint it amber' });
      await vi.waitFor(async () => expect(await readFile(join(dir, 'side', 'notes.txt'), 'utf8')).toBe('colour: amber\n'), { timeout: 60_000 });
      expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: red\n');
      // A conflict handed to the worktree reaches its session in that core (the mailbox here, under its ssh:// key).
      await vi.waitFor(async () => expect(JSON.stringify(await ask(there, 'openSession', { sessionId: session.id }))).toContain('Amber.'), { timeout: 30_000 });
      await writeFile(join(rig.there, 'notes.txt'), 'colour: black\n');
      execFileSync('git', ['-C', rig.there, 'commit', '-qam', 'black']);
      expect(await main.handlers.mergeWorktree({ name: 'side' })).toMatchObject({ status: 'conflict', files: ['notes.txt'] });
      rig.server.enqueue(textReply('Resolved it.'));
      const handed = await main.handlers.handWorktreeConflict({ name: 'side' });
      expect(handed).toMatchObject({ status: 'conflict', sent: { sessionId: session.id } });
      await vi.waitFor(async () => expect(JSON.stringify(await ask(there, 'openSession', { sessionId: session.id }))).toContain('Resolved it.'), {
        timeout: 60_000,
      });
      expect(await readFile(join(dir, 'side', 'notes.txt'), 'utf8')).toContain('<<<<<<<');
      expect(await readFile(join(rig.there, 'notes.txt'), 'utf8')).toBe('colour: black\n');
      // A second page gets the same core (no second connection).
      const again = await page('&worktree=side');
      await vi.waitFor(() => expect(again.messages[0]).toMatchObject({ view: { worktree: { name: 'side' } } }), { timeout: 30_000 });
      expect(cores.size).toBe(1);
      expect(opened).toHaveLength(1);
      // A worktree whose folder there was swapped for a link (to the main checkout) is refused: no connection, no core.
      await rm(join(dir, 'evil'), { recursive: true, force: true });
      await symlink(rig.path, join(dir, 'evil'));
      const evil = await page('&worktree=evil');
      await vi.waitFor(() => expect(evil.messages[0]).toMatchObject({ view: { worktree: null, refused: expect.stringContaining('is not a folder') } }), {
        timeout: 30_000,
      });
      const path = await page(`&worktree=${encodeURIComponent(rig.path)}`);
      await vi.waitFor(() => expect(path.messages[0]).toMatchObject({ view: { worktree: null, refused: expect.stringContaining('not a worktree name') } }), {
        timeout: 30_000,
      });
      expect(opened).toHaveLength(1);
      for (const p of [there, again, evil, path]) p.ws.close();
      // Closing the worktree cores ends their connections too.
      const before = await rig.sshd.connectionCount();
      await cores.closeAll();
      await vi.waitFor(async () => expect(await rig.sshd.connectionCount()).toBe(before - 1), { timeout: 10_000 });
    } finally {
      await cores.closeAll();
      await host.close();
      await main.close();
      await remote.environment.close();
    }
  });

  it('the window’s worktree commands on a remote folder: made, shown, its changes, merged and discarded there; never opened here', {
    timeout: 120_000,
  }, async () => {
    const opened: string[] = [];
    const { core, close } = await remoteCore(rig, {
      openFolder: async (path: string) => {
        opened.push(path);
        return 'here' as const;
      },
    });
    // A host that cannot show it (the CLI, the desktop app on a remote folder): where it is is said instead.
    const elsewhere = await remoteCore(rig);
    try {
      const made = await core.handlers.createWorktree({ name: 'win' });
      expect(await elsewhere.core.handlers.openWorktree({ name: 'win' })).toEqual({ opened: false, path: made.worktree.path });
      expect(made.copied).toEqual(['.env.example']);
      const dir = await worktreesThere();
      expect(made.worktree.path).toMatch(/\/\.deft\/worktrees\/.*\/win$/);
      await writeFile(join(dir, 'win', 'notes.txt'), 'colour: purple\n');
      const listed = await core.handlers.listWorktrees({});
      expect(listed.repoRoot).toBe(rig.path);
      expect(listed.worktrees.map((w) => [w.name, w.changedFiles])).toEqual([['win', ['notes.txt']]]);
      const changes = await core.handlers.worktreeChanges({ name: 'win' });
      expect(changes.files.map((f) => [f.path, f.status, f.hunks[0]?.lines])).toEqual([['notes.txt', 'modified', ['-colour: red', '+colour: purple']]]);
      // The host can show it (the web host: a core of its own on a connection of its own there, below): opened here.
      expect(await core.handlers.openWorktree({ name: 'win' })).toEqual({ opened: true, here: true, path: made.worktree.path });
      expect(opened).toEqual([made.worktree.path]);
      const merged = await core.handlers.mergeWorktree({ name: 'win', expect: { head: changes.head, tree: changes.tree } });
      expect(merged).toMatchObject({ status: 'merged', baseBranch: 'main', files: ['notes.txt'] });
      expect(look(['show', 'main:notes.txt'])).toBe('colour: purple\n');
      expect(await core.handlers.discardWorktree({ name: 'win', deleteBranch: true })).toMatchObject({ branchDeleted: true });
      expect(existsSync(join(dir, 'win'))).toBe(false);
      await expect(core.handlers.worktreeChanges({ name: '../win' })).rejects.toThrow();
    } finally {
      await elsewhere.close();
      await close();
    }
  });
});
