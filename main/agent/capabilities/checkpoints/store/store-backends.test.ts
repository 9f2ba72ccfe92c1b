import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { sshToTempHome } from '#test-support/ssh-home';
import { CheckpointStore } from './store';
import { RemoteCheckpointStore } from './remote-store';
import type { CheckpointStoreApi } from './store-api';

// Issue 29: the store's rules, for both backends through the one interface the capability uses — this machine's
// store (CheckpointStore) and a store on the workspace's machine driven over SSH (RemoteCheckpointStore, against a real
// sshd). The sshd sees its user's home as another folder (`remoteHome`), so the remote store is found there; the
// workspace (under /tmp) is the same folder on both sides, so the files are checked here.

const remote = sshToTempHome('deft-cp-remote-home-');

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

interface Backend {
  open(home: string, workspace: string, maxFileBytes?: number): Promise<CheckpointStoreApi>;
  /** The store's git folder as this machine sees it. */
  gitDirHere(store: CheckpointStoreApi): string;
}

const backends: Record<'local' | 'ssh', Backend> = {
  local: {
    open: (home, workspace, maxFileBytes) => CheckpointStore.open(home, workspace, maxFileBytes ? { maxFileBytes } : {}),
    gitDirHere: (store) => store.places.gitDir,
  },
  ssh: {
    open: (home, workspace, maxFileBytes) =>
      RemoteCheckpointStore.open(remote.ssh, workspace, {
        lockDir: join(home, 'checkpoints'),
        key: `ssh://test${workspace}`,
        ...(maxFileBytes ? { maxFileBytes } : {}),
      }),
    gitDirHere: (store) => remote.here(store.places.gitDir),
  },
};

async function setup(files: Record<string, string> = {}) {
  const workspace = await tempDir('deft-cp-ws-');
  const home = await tempDir('deft-cp-home-');
  dirs.push(workspace, home);
  for (const [path, content] of Object.entries(files)) await put(workspace, path, content);
  return { workspace, home };
}

async function put(root: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

const snapshot = (store: CheckpointStoreApi, session = 's1') => store.locked(async () => store.record(await store.capture(), { session, kind: 'turn' }));

async function fingerprint(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else
        out[relative(root, path)] = `${createHash('sha1')
          .update(await readFile(path))
          .digest('hex')} ${(await stat(path)).mode.toString(8)}`;
    }
  };
  await walk(root);
  return out;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).toString();
}

const treeFiles = (backend: Backend, store: CheckpointStoreApi, tree: string) =>
  execFileSync('git', ['--git-dir', backend.gitDirHere(store), 'ls-tree', '-r', '--name-only', tree])
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean);

describe.each(['local', 'ssh'] as const)('checkpoint store (%s)', (name) => {
  const backend = backends[name];

  it('captures, lists what changed and restores exactly (content, mode, links, deletions)', { timeout: 30_000 }, async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', 'src/b.txt': 'two\n', 'c.txt': 'three\n' });
    await put(workspace, 'run.sh', '#!/bin/sh\necho hi\n');
    await chmod(join(workspace, 'run.sh'), 0o755);
    await symlink('a.txt', join(workspace, 'link'));
    const store = await backend.open(home, workspace);
    const first = await snapshot(store);
    expect(first.seq).toBe(1);
    await writeFile(join(workspace, 'a.txt'), 'one changed\n');
    await rm(join(workspace, 'c.txt'));
    await put(workspace, 'new/deep/d.txt', 'new\n');
    await chmod(join(workspace, 'run.sh'), 0o644);
    await rm(join(workspace, 'link'));
    await symlink('src/b.txt', join(workspace, 'link'));
    const second = await snapshot(store);
    expect(second.seq).toBe(2);
    const changes = await store.changes(first.tree, second.tree, true);
    expect(changes.map((c) => [c.path, c.status]).sort()).toEqual([
      ['a.txt', 'modified'],
      ['c.txt', 'deleted'],
      ['link', 'modified'],
      ['new/deep/d.txt', 'added'],
      ['run.sh', 'modified'],
    ]);
    expect(changes.find((c) => c.path === 'a.txt')).toMatchObject({ added: 1, removed: 1 });
    const entry = await store.entry(first.tree, 'a.txt');
    expect(entry?.mode).toBe('100644');
    expect((await store.blob(entry!.blob)).toString()).toBe('one\n');

    const problems = await store.locked(() =>
      store.restore(
        first.tree,
        changes.map((c) => c.path),
      ),
    );
    expect(problems).toEqual([]);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('one\n');
    expect(await readFile(join(workspace, 'c.txt'), 'utf8')).toBe('three\n');
    expect((await stat(join(workspace, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(workspace, 'link'))).toBe('a.txt');
    await expect(stat(join(workspace, 'new'))).rejects.toThrow();
    expect((await store.capture()).tree).toBe(first.tree);
    expect((await store.list('s1')).map((c) => c.seq)).toEqual([1, 2]);
    expect(await store.headTree()).toBe(second.tree);
  });

  it("leaves a repository's .git byte-identical and runs none of its hooks, fsmonitor or filters; converts no bytes", { timeout: 30_000 }, async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n' });
    git(workspace, 'init', '-q');
    const marker = join(home, 'pwned');
    git(workspace, 'config', 'filter.evil.clean', `sh -c 'touch ${marker}; cat'`);
    git(workspace, 'config', 'filter.evil.required', 'true');
    git(workspace, 'config', 'core.fsmonitor', `touch ${marker}`);
    await put(workspace, '.git/hooks/post-index-change', `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(join(workspace, '.git/hooks/post-index-change'), 0o755);
    await put(workspace, '.gitattributes', '* filter=evil text eol=crlf ident\n');
    await put(workspace, 'crlf.txt', 'a\r\nb $Id$\r\n');
    const before = await fingerprint(join(workspace, '.git'));

    const store = await backend.open(home, workspace);
    const first = await snapshot(store);
    await writeFile(join(workspace, 'crlf.txt'), 'changed\n');
    await snapshot(store);
    await store.locked(() => store.restore(first.tree, ['crlf.txt']));
    expect(await readFile(join(workspace, 'crlf.txt'), 'utf8')).toBe('a\r\nb $Id$\r\n');
    expect(await fingerprint(join(workspace, '.git'))).toEqual(before);
    await expect(stat(marker)).rejects.toThrow();
  });

  it('leaves out secrets, ignored files, files over the size limit and nested repositories, and says which', { timeout: 30_000 }, async () => {
    const { workspace, home } = await setup({
      '.gitignore': 'build/\n',
      'build/out.js': 'x',
      'small.txt': 'ok',
      '.env': 'TOKEN=secret\n',
      'config/.env.production': 'TOKEN=secret\n',
      'keys/server.pem': '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n',
    });
    await put(workspace, 'big.bin', Buffer.alloc(2048, 1));
    await put(workspace, 'vendor/lib/file.c', 'int x;');
    git(join(workspace, 'vendor/lib'), 'init', '-q');
    const store = await backend.open(home, workspace, 1024);
    const first = await snapshot(store);
    expect(first.skipped).toEqual([
      { path: '.env', reason: 'secret' },
      { path: 'big.bin', reason: 'too_large', size: 2048 },
      { path: 'config/.env.production', reason: 'secret' },
      { path: 'keys/server.pem', reason: 'secret' },
      { path: 'vendor/lib', reason: 'nested_repository' },
    ]);
    expect(treeFiles(backend, store, first.tree)).toEqual(['.gitignore', 'small.txt']);
    // A tracked file that grows over the limit leaves the checkpoint too.
    await writeFile(join(workspace, 'small.txt'), Buffer.alloc(4096, 2));
    const second = await snapshot(store);
    expect(second.skipped.map((s) => s.path)).toContain('small.txt');
    expect(treeFiles(backend, store, second.tree)).toEqual(['.gitignore']);
  });

  it('applies the ignore rules of the folders above the workspace; drops and compacts checkpoints', { timeout: 30_000 }, async () => {
    const { workspace: repo, home } = await setup({
      '.gitignore': 'node_modules/\n*.tmp\n',
      'packages/app/src/a.ts': 'a',
      'packages/app/node_modules/m/i.js': 'm',
      'packages/app/x.tmp': 't',
    });
    git(repo, 'init', '-q');
    const workspace = join(repo, 'packages/app');
    const store = await backend.open(home, workspace);
    const first = await snapshot(store);
    expect(treeFiles(backend, store, first.tree)).toEqual(['src/a.ts']);
    await writeFile(join(workspace, 'src/a.ts'), 'b');
    const second = await snapshot(store, 's2');
    expect((await store.listAll()).map((c) => c.id)).toEqual(['s1/1', 's2/1']);
    await store.locked(async () => {
      await store.drop([first]);
      await store.compact(true);
    });
    expect((await store.listAll()).map((c) => c.id)).toEqual([second.id]);
    expect(await store.looseObjects()).toBe(0);
    expect(await store.sizeBytes()).toBeGreaterThan(0);
  });
});
