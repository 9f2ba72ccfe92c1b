import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, readdir, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { runGit } from './git';
import { SECRET_PLACES } from '#infra/policies/secret-places';
import { CheckpointStore, toFileChange } from './store';
import { parseDiffTree } from './status';
import { loggedGit } from '#test-support/logged-git';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function setup(files: Record<string, string> = {}) {
  const workspace = await tempDir('deft-cp-ws-');
  const home = await tempDir('deft-cp-home-');
  dirs.push(workspace, home);
  for (const [path, content] of Object.entries(files)) await put(workspace, path, content);
  return { workspace, home };
}

async function mkdirp(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  return path;
}

async function put(root: string, path: string, content: string | Buffer): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

async function snapshot(store: CheckpointStore, session = 's1', kind: 'turn' | 'step' = 'turn') {
  return store.locked(async () => store.record(await store.capture(), { session, kind }));
}

/** Every file under a folder with its bytes' hash, its mode and its mtime: byte-identical means equal. */
async function fingerprint(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else {
        const s = await stat(path);
        out[relative(root, path)] = `${createHash('sha1')
          .update(await readFile(path))
          .digest('hex')} ${s.mode.toString(8)} ${s.mtimeMs}`;
      }
    }
  };
  await walk(root);
  return out;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).toString();
}

describe('CheckpointStore', () => {
  it("a few changed files are told apart here exactly as git's diff-tree --numstat tells them", async () => {
    const { workspace, home } = await setup({
      'a.txt': 'one\ntwo\nthree\n',
      'b.txt': 'no newline at the end',
      'c.sh': '#!/bin/sh\n',
      'crlf.txt': 'x\r\ny\r\n',
      'bin.dat': 'text',
      'gone/x.txt': 'x\n',
      'turn/into-folder': 'a file first\n',
      'deep/er/f.txt': 'deep\n',
      'link-later': 'a file\n',
    });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    await writeFile(join(workspace, 'a.txt'), 'one\n2\nthree\nfour\n');
    await writeFile(join(workspace, 'b.txt'), 'no newline at the end\n');
    await chmod(join(workspace, 'c.sh'), 0o755);
    await writeFile(join(workspace, 'crlf.txt'), 'x\ny\r\n');
    await writeFile(join(workspace, 'bin.dat'), Buffer.from([1, 0, 2, 10]));
    await rm(join(workspace, 'gone'), { recursive: true });
    await rm(join(workspace, 'turn/into-folder'));
    await put(workspace, 'turn/into-folder/inner.txt', 'now a folder\n');
    await writeFile(join(workspace, 'deep/er/f.txt'), 'deeper\n');
    await put(workspace, 'new/file.txt', '');
    await rm(join(workspace, 'link-later'));
    await symlink('a.txt', join(workspace, 'link-later'));
    const second = await snapshot(store);
    const git = (await runGit(null, ['--git-dir', store.places.gitDir, 'diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', first.tree, second.tree]))
      .stdout;
    const expected = parseDiffTree(git).map(toFileChange);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    expect(await store.changes(first.tree, second.tree, true)).toEqual(expected);
    expect(await store.changes(second.tree, first.tree, true)).toEqual(
      parseDiffTree(
        (await runGit(null, ['--git-dir', store.places.gitDir, 'diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', second.tree, first.tree])).stdout,
      ).map(toFileChange),
    );
    store.close();
  });

  it("a turn's many changed files are listed here, without git, and the first N counted exactly as git's numstat counts them", async () => {
    const files = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`d${i % 4}/f${String(i).padStart(2, '0')}.txt`, `line a ${i}\nline b\nline c\n`]));
    const { workspace, home } = await setup(files);
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    const paths = Object.keys(files);
    for (const [i, path] of paths.entries()) {
      if (i % 9 === 0) await rm(join(workspace, path));
      else await writeFile(join(workspace, path), i % 2 ? `line a ${i}\nline b changed\nline c\nmore\n` : `line a ${i}\n`);
    }
    await put(workspace, 'd9/new.txt', 'one\ntwo\n');
    const second = await snapshot(store);
    const numstat = parseDiffTree(
      (await runGit(null, ['--git-dir', store.places.gitDir, 'diff-tree', '-r', '-z', '--no-renames', '--raw', '--numstat', first.tree, second.tree])).stdout,
    ).map(toFileChange);
    expect(numstat).toHaveLength(46);
    const git = await loggedGit();
    try {
      const changes = await store.changes(first.tree, second.tree, 30);
      expect(await git.calls()).toEqual([]);
      expect(changes.slice(0, 30)).toEqual(numstat.slice(0, 30));
      expect(changes.slice(30)).toEqual(numstat.slice(30).map((c) => ({ ...c, added: null, removed: null })));
    } finally {
      git.restore();
    }
    store.close();
  });

  it('a capture of many changed files writes their blobs as one pack git reads, and a rewind puts them back', async () => {
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`d${i % 3}/f${i}.txt`, `original ${i}\n`]));
    const { workspace, home } = await setup(files);
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    for (const path of Object.keys(files)) await writeFile(join(workspace, path), `changed ${path}\n`);
    const changed = await store.locked(async () => store.record(await store.capture(Object.keys(files)), { session: 's1', kind: 'step' }));
    const packs = (await readdir(join(store.places.gitDir, 'objects', 'pack'))).filter((n) => n.endsWith('.pack'));
    expect(packs).toHaveLength(1);
    const git = async (...args: string[]) => (await runGit(null, ['--git-dir', store.places.gitDir, ...args])).stdout.toString();
    await git('fsck', '--full', '--no-dangling');
    expect(await git('cat-file', 'blob', `${changed.tree}:d1/f4.txt`)).toBe('changed d1/f4.txt\n');
    expect((await store.changes(first.tree, changed.tree)).length).toBe(60);
    await store.locked(() => store.restore(first.tree, Object.keys(files)));
    expect(await readFile(join(workspace, 'd1/f4.txt'), 'utf8')).toBe('original 4\n');
    store.close();
  });

  it('captures a folder that is not a repository, lists what changed and restores it exactly (content, mode, links, deletions)', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', 'src/b.txt': 'two\n', 'c.txt': 'three\n' });
    await put(workspace, 'run.sh', '#!/bin/sh\necho hi\n');
    await chmod(join(workspace, 'run.sh'), 0o755);
    await symlink('a.txt', join(workspace, 'link'));
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    expect(first.seq).toBe(1);

    await writeFile(join(workspace, 'a.txt'), 'one changed\n');
    await rm(join(workspace, 'c.txt'));
    await put(workspace, 'new/deep/d.txt', 'new\n');
    await chmod(join(workspace, 'run.sh'), 0o644);
    await rm(join(workspace, 'link'));
    await symlink('src/b.txt', join(workspace, 'link'));
    const second = await snapshot(store);

    const changes = await store.changes(first.tree, second.tree, true);
    expect(changes.map((c) => [c.path, c.status]).sort()).toEqual([
      ['a.txt', 'modified'],
      ['c.txt', 'deleted'],
      ['link', 'modified'],
      ['new/deep/d.txt', 'added'],
      ['run.sh', 'modified'],
    ]);
    expect(changes.find((c) => c.path === 'a.txt')).toMatchObject({ added: 1, removed: 1 });

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
    await expect(stat(join(workspace, 'new'))).rejects.toThrow(); // the folders a created file needed go too
    expect((await store.list('s1')).map((c) => c.seq)).toEqual([1, 2]);
    // Nothing of the store is in the workspace.
    expect((await readdir(workspace)).sort()).toEqual(['a.txt', 'c.txt', 'link', 'run.sh', 'src']);
  });

  it("keeps what git's status refreshed in the store's own index, so the next status hashes those files no more", async () => {
    const { workspace, home } = await setup({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    // Same bytes, another time: git's status hashes the file to see it is unchanged, and writes its new stat data.
    await utimes(join(workspace, 'a.txt'), new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    expect((await store.locked(() => store.capture())).tree).toBe(first.tree);
    const places = { gitDir: store.places.gitDir, workTree: workspace, indexFile: join(store.places.gitDir, 'index') };
    // diff-files compares stat data only (it refreshes nothing): a file whose stat differs from the index is listed.
    expect((await runGit(places, ['diff-files', '--name-only'])).stdout.toString('utf8')).toBe('');
  });

  it("leaves a repository's .git byte-identical (HEAD, index, config, refs, stash) through captures and restores", async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    git(workspace, 'init', '-q');
    git(workspace, 'add', '.');
    git(workspace, 'commit', '-qm', 'first');
    await writeFile(join(workspace, 'a.txt'), 'stashed\n');
    git(workspace, 'stash', '-q');
    await writeFile(join(workspace, 'b.txt'), 'work in progress\n');
    git(workspace, 'add', 'b.txt');
    const before = await fingerprint(join(workspace, '.git'));

    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    await writeFile(join(workspace, 'a.txt'), 'edited\n');
    await put(workspace, 'c.txt', 'new\n');
    const second = await snapshot(store);
    await store.locked(() => store.restore(first.tree, ['a.txt', 'c.txt']));
    await store.locked(() => store.restore(second.tree, ['a.txt', 'c.txt']));

    expect(await fingerprint(join(workspace, '.git'))).toEqual(before);
    expect(git(workspace, 'status', '--porcelain')).toBe(' M a.txt\nM  b.txt\n?? c.txt\n');
    expect((await store.changes(first.tree, second.tree)).map((c) => c.path)).toEqual(['a.txt', 'c.txt']);
  });

  it("runs none of a hostile repository's hooks, fsmonitor or filter drivers, and converts no bytes", async () => {
    const { workspace, home } = await setup();
    git(workspace, 'init', '-q');
    const marker = join(home, 'pwned');
    const evil = `sh -c 'touch ${marker}; cat'`;
    git(workspace, 'config', 'filter.evil.clean', evil);
    git(workspace, 'config', 'filter.evil.smudge', evil);
    git(workspace, 'config', 'filter.evil.required', 'true');
    git(workspace, 'config', 'core.fsmonitor', `touch ${marker}`);
    git(workspace, 'config', 'core.hooksPath', '.githooks');
    await put(workspace, '.githooks/post-index-change', `#!/bin/sh\ntouch ${marker}\n`);
    await put(workspace, '.git/hooks/post-index-change', `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(join(workspace, '.githooks/post-index-change'), 0o755);
    await chmod(join(workspace, '.git/hooks/post-index-change'), 0o755);
    await put(workspace, '.gitattributes', '* filter=evil text eol=crlf ident working-tree-encoding=UTF-16\n');
    await put(workspace, 'lf.txt', 'line one\nline two $Id$\n');
    await put(workspace, 'crlf.txt', 'a\r\nb\r\n');

    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    await writeFile(join(workspace, 'lf.txt'), 'changed\n');
    await rm(join(workspace, 'crlf.txt'));
    await snapshot(store);
    await store.locked(() => store.restore(first.tree, ['lf.txt', 'crlf.txt']));

    expect(await readFile(join(workspace, 'lf.txt'), 'utf8')).toBe('line one\nline two $Id$\n');
    expect(await readFile(join(workspace, 'crlf.txt'), 'utf8')).toBe('a\r\nb\r\n');
    await expect(stat(marker)).rejects.toThrow();
  });

  it('leaves out ignored files, files over the size limit and nested repositories, and says which', async () => {
    const { workspace, home } = await setup({ '.gitignore': 'build/\n*.log\n', 'build/out.js': 'x', 'debug.log': 'x', 'small.txt': 'ok' });
    await put(workspace, 'big.bin', Buffer.alloc(2048, 1));
    await put(workspace, 'vendor/lib/file.c', 'int x;');
    git(join(workspace, 'vendor/lib'), 'init', '-q');
    const store = await CheckpointStore.open(home, workspace, { maxFileBytes: 1024 });
    const first = await snapshot(store);
    expect(first.skipped).toEqual([
      { path: 'big.bin', reason: 'too_large', size: 2048 },
      { path: 'vendor/lib', reason: 'nested_repository' },
    ]);
    const listed = execFileSync('git', ['--git-dir', store.places.gitDir, 'ls-tree', '-r', '--name-only', first.tree]).toString().trim().split('\n');
    expect(listed).toEqual(['.gitignore', 'small.txt']);
    // A tracked file that grows over the limit leaves the checkpoint too.
    await writeFile(join(workspace, 'small.txt'), Buffer.alloc(4096, 2));
    const second = await snapshot(store);
    expect(second.skipped.map((s) => s.path)).toEqual(['big.bin', 'small.txt', 'vendor/lib']);
  });

  it('applies the ignore rules of the folders above the workspace inside its repository', async () => {
    const { workspace: repo, home } = await setup({
      '.gitignore': 'node_modules/\n/packages/app/dist/\n/other/\n*.tmp\n',
      'packages/app/src/a.ts': 'a',
      'packages/app/node_modules/m/i.js': 'm',
      'packages/app/dist/o.js': 'o',
      'packages/app/x.tmp': 't',
    });
    git(repo, 'init', '-q');
    const workspace = join(repo, 'packages/app');
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    const listed = execFileSync('git', ['--git-dir', store.places.gitDir, 'ls-tree', '-r', '--name-only', first.tree]).toString().trim().split('\n');
    expect(listed).toEqual(['src/a.ts']);
  });

  it('records nothing new in the object store for an unchanged workspace, and one blob for one changed file', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', 'b.txt': 'two\n' });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    const again = await store.locked(() => store.capture());
    expect(again.tree).toBe(first.tree);
    const loose = await store.looseObjects();
    await writeFile(join(workspace, 'a.txt'), 'changed\n');
    await snapshot(store);
    // One blob, one tree, one commit.
    expect((await store.looseObjects()) - loose).toBe(3);
  });
  it('a narrowed capture looks only at the named files (ignore rules and the size limit still apply); the next full one sees the rest', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', 'b.txt': 'two\n', '.gitignore': 'build/\n' });
    const store = await CheckpointStore.open(home, workspace, { maxFileBytes: 1_000 });
    const first = await snapshot(store);
    await put(workspace, 'a.txt', 'one, edited\n');
    await put(workspace, 'new/c.txt', 'three\n');
    await put(workspace, 'b.txt', 'two, changed by a command\n');
    await put(workspace, 'build/out.js', 'ignored\n');
    await put(workspace, 'big.bin', 'x'.repeat(2_000));
    const narrowed = await store.locked(async () => {
      const capture = await store.capture(['a.txt', 'new/c.txt', 'build/out.js', 'big.bin']);
      return { capture, checkpoint: await store.record(capture, { session: 's1', kind: 'step' }) };
    });
    expect((await store.changes(first.tree, narrowed.checkpoint.tree)).map((c) => c.path)).toEqual(['a.txt', 'new/c.txt']);
    expect(narrowed.capture.skipped).toEqual([{ path: 'big.bin', reason: 'too_large', size: 2_000 }]);
    const full = await snapshot(store);
    expect((await store.changes(narrowed.checkpoint.tree, full.tree)).map((c) => c.path)).toEqual(['b.txt']);
    // A deleted file leaves the index; a path that never existed is no error.
    await rm(join(workspace, 'new/c.txt'));
    const deleted = await store.locked(async () => store.record(await store.capture(['new/c.txt', 'never.txt']), { session: 's1', kind: 'step' }));
    expect(await store.changes(full.tree, deleted.tree)).toMatchObject([{ path: 'new/c.txt', status: 'deleted' }]);
    // A file inside a nested repository is never captured, narrowed or not.
    git(await mkdirp(join(workspace, 'nested')), 'init', '-q');
    await put(workspace, 'nested/x.txt', 'x\n');
    const nested = await store.locked(async () => store.record(await store.capture(['nested/x.txt']), { session: 's1', kind: 'step' }));
    expect(nested.tree).toBe(deleted.tree);
  });

  it('hashes a few changed files and writes their trees itself, leaving the index alone, with the tree git would write; many changes go through git', async () => {
    const { workspace, home } = await setup({
      'a.txt': 'one\n',
      'a-b.txt': 'x\n',
      'a.b': 'dot\n',
      'a/x.txt': 'in a\n',
      a0: 'zero\n',
      'gone/only.txt': 'last file of its folder\n',
      'becomes-folder': 'a file for now\n',
      'folder-becomes-file/in.txt': 'inside\n',
      'dir with space/é.txt': 'unicode\n',
      'run.sh': '#!/bin/sh\n',
      ...Object.fromEntries(Array.from({ length: 210 }, (_, i) => [`many/f${i}.txt`, `${i}\n`])),
    });
    const store = await CheckpointStore.open(home, workspace);
    const gitDir = store.places.gitDir;
    const store_ = { gitDir, workTree: workspace, indexFile: join(gitDir, 'index') };
    /** The blob the store's own index holds for a path. */
    const indexed = async (path: string) => (await runGit(store_, ['ls-files', '--stage', '--', path])).stdout.toString().split(' ')[1];
    /** The tree git itself writes for the workspace, through an index of its own. */
    const gitTree = async () => {
      const places = { gitDir, workTree: workspace, indexFile: join(gitDir, 'test-index') };
      await rm(places.indexFile, { force: true });
      await runGit(places, ['add', '-A']);
      return (await runGit(places, ['write-tree'])).stdout.toString().trim();
    };
    const first = await snapshot(store);
    expect(first.tree).toBe(await gitTree());
    const indexedBefore = await indexed('a.txt');

    await put(workspace, 'a.txt', 'one, edited\n');
    await chmod(join(workspace, 'run.sh'), 0o755);
    await rm(join(workspace, 'gone/only.txt'));
    await rm(join(workspace, 'becomes-folder'));
    await put(workspace, 'becomes-folder/inside.txt', 'now a folder\n');
    await rm(join(workspace, 'folder-becomes-file'), { recursive: true });
    await put(workspace, 'folder-becomes-file', 'now a file\n');
    await symlink('a.txt', join(workspace, 'link'));
    await put(workspace, 'new/deep/z.txt', 'new\n');
    await put(workspace, 'a/y.txt', 'also in a\n');
    const second = await snapshot(store);
    expect(second.tree).toBe(await gitTree());
    // Done here, not by git's update-index and write-tree: the store's index still holds the old a.txt.
    expect(await indexed('a.txt')).toBe(indexedBefore);
    expect((await store.entry(second.tree, 'a.txt'))?.blob).not.toBe(indexedBefore);
    await runGit(null, ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
    // The files the index lags behind for are seen again, and nothing more is recorded for them.
    expect((await snapshot(store)).tree).toBe(second.tree);
    await put(workspace, 'a0', 'zero, edited\n');
    const third = await snapshot(store);
    expect((await store.changes(second.tree, third.tree)).map((c) => c.path)).toEqual(['a0']);

    // A narrowed capture git refuses (a path outside the workspace) looks at the whole workspace; one of no paths is HEAD's tree.
    await put(workspace, 'a-b.txt', 'x, edited\n');
    expect((await store.locked(() => store.capture([]))).tree).toBe(third.tree);
    const outside = await store.locked(() => store.capture(['../elsewhere.txt']));
    expect((await store.changes(third.tree, outside.tree)).map((c) => c.path)).toEqual(['a-b.txt']);
    await put(workspace, 'a-b.txt', 'x\n');

    // Back to the first checkpoint and forward again, exactly.
    const back = (await store.changes(third.tree, first.tree)).map((c) => c.path);
    await store.locked(() => store.restore(first.tree, back));
    expect((await snapshot(store)).tree).toBe(first.tree);
    expect(await readFile(join(workspace, 'folder-becomes-file/in.txt'), 'utf8')).toBe('inside\n');

    // More than 200 files changed: git's update-index brings the index up to date, and the tree is the same as ever.
    for (let i = 0; i < 210; i++) await put(workspace, `many/f${i}.txt`, `${i} changed\n`);
    const many = await snapshot(store);
    expect(many.tree).toBe(await gitTree());
    expect(await indexed('many/f0.txt')).toBe((await store.entry(many.tree, 'many/f0.txt'))?.blob);
    expect((await runGit(store_, ['status', '--porcelain', '--untracked-files=all'])).stdout.toString()).toBe('');
    await runGit(null, ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
  });
});

describe('checkpoints never store a secret file (finding 6)', () => {
  const secrets = {
    '.env': 'TOKEN=xyzzy-env\n',
    'config/.env.local': 'TOKEN=xyzzy-local\n',
    'deploy.pem': '-----BEGIN RSA PRIVATE KEY-----\nxyzzy-pem\n',
    'copy/.aws/credentials': 'aws_secret_access_key=xyzzy-aws\n',
  };
  const held = (store: CheckpointStore, content: string) =>
    runGit({ gitDir: store.places.gitDir, workTree: store.places.workspace, indexFile: join(store.places.gitDir, 'index') }, [
      'cat-file',
      '-e',
      createHash('sha1')
        .update(`blob ${Buffer.byteLength(content)}\0${content}`)
        .digest('hex'),
    ]).then(
      () => true,
      () => false,
    );

  it('an un-ignored .env, a private key and a credentials file are left out, whether git writes the tree or Deft does, and listed as secrets', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'one\n', ...secrets });
    git(workspace, 'init', '-q');
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    expect(await store.entry(first.tree, 'a.txt')).not.toBeNull();
    for (const path of Object.keys(secrets)) expect(await store.entry(first.tree, path), path).toBeNull();
    expect(
      first.skipped
        .filter((s) => s.reason === 'secret')
        .map((s) => s.path)
        .sort(),
    ).toEqual(Object.keys(secrets).sort());
    // A later capture of a few changed files is written by Deft itself (not git's index): the same holds.
    await writeFile(join(workspace, '.env'), 'TOKEN=xyzzy-env-changed\n');
    await writeFile(join(workspace, 'a.txt'), 'two\n');
    const second = await snapshot(store);
    expect(await store.entry(second.tree, '.env')).toBeNull();
    for (const content of [...Object.values(secrets), 'TOKEN=xyzzy-env-changed\n']) expect(await held(store, content), content).toBe(false);
    store.close();
  });

  it('every entry of the one list of secrets, copied into a workspace, is left out', async () => {
    const files = Object.fromEntries(
      SECRET_PLACES.map((place) => [
        `home/${place.dir ? `${place.path}/stored-secret` : place.path}`,
        place.byContent ? '//registry.npmjs.org/:_authToken=xyzzy\n' : 'xyzzy\n',
      ]),
    );
    const { workspace, home } = await setup({ 'a.txt': 'one\n', ...files });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    expect(await store.entry(first.tree, 'a.txt')).not.toBeNull();
    const stored = [];
    for (const path of Object.keys(files)) if (await store.entry(first.tree, path)) stored.push(path);
    expect(stored).toEqual([]);
    store.close();
  });

  it("tells each session's latest checkpoint time as the full listing does, loose and packed", async () => {
    const { workspace, home } = await setup({ 'a.txt': 'a' });
    let clock = 1_000;
    const store = await CheckpointStore.open(home, workspace, { now: () => clock++ });
    const latestOf = async () => {
      const all = new Map<string, number>();
      for (const c of await store.listAll()) all.set(c.session, c.at);
      return all;
    };
    await snapshot(store, 's1');
    await put(workspace, 'a.txt', 'b');
    await snapshot(store, 's2');
    await snapshot(store, 's1', 'step');
    expect(await store.latestTimes()).toEqual(await latestOf());
    await store.locked(() => store.compact(true));
    expect(await readFile(join(store.places.gitDir, 'packed-refs'), 'utf8')).toContain('refs/deft/s2/');
    await put(workspace, 'a.txt', 'c');
    await snapshot(store, 's2', 'step');
    expect(await store.latestTimes()).toEqual(await latestOf());
    expect((await store.latestTimes())?.get('s2')).toBe(1_003);
    store.close();
  });

  it('writes a checkpoint past the ref locks a killed process left (removed when one is in the way, not by a walk at each open)', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'a' });
    const store = await CheckpointStore.open(home, workspace);
    await snapshot(store, 's1');
    const { gitDir } = store.places;
    await writeFile(join(gitDir, 'refs/deft/s1/00000002.lock'), 'stale\n');
    await writeFile(join(gitDir, 'HEAD.lock'), 'stale\n');
    await put(workspace, 'a.txt', 'b');
    const second = await snapshot(store, 's1');
    expect(second.seq).toBe(2);
    expect((await readFile(join(gitDir, 'HEAD'), 'utf8')).trim()).toBe(second.commit);
    await expect(stat(join(gitDir, 'refs/deft/s1/00000002.lock'))).rejects.toThrow();
    store.close();
  });

  it('a narrowed capture of files HEAD holds hashes them here, as git would; a file HEAD lacks goes through git and its ignore rules', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'a', 'src/b.txt': 'b', '.gitignore': 'build/\n' });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store, 's1');
    await put(workspace, 'src/b.txt', 'b2');
    await put(workspace, 'build/x.js', 'x');
    await put(workspace, 'c.txt', 'c');
    const narrowed = await store.locked(() => store.capture(['src/b.txt', 'a.txt']));
    expect(await store.entry(narrowed.tree, 'src/b.txt')).toEqual({ mode: '100644', blob: git(workspace, 'hash-object', 'src/b.txt').trim() });
    expect(await store.entry(narrowed.tree, 'c.txt')).toBeNull();
    expect((await store.changes(first.tree, narrowed.tree)).map((c) => c.path)).toEqual(['src/b.txt']);
    const ignored = await store.locked(() => store.capture(['build/x.js', 'c.txt']));
    expect(await store.entry(ignored.tree, 'build/x.js')).toBeNull();
    expect(await store.entry(ignored.tree, 'c.txt')).not.toBeNull();
    await rm(join(workspace, 'a.txt'));
    await chmod(join(workspace, 'src/b.txt'), 0o755);
    const after = await store.locked(async () => store.record(await store.capture(['a.txt', 'src/b.txt']), { session: 's1', kind: 'step' }));
    expect(await store.entry(after.tree, 'a.txt')).toBeNull();
    expect((await store.entry(after.tree, 'src/b.txt'))?.mode).toBe('100755');
    // The same tree a full look makes of the same files (c.txt and the ignored build/ aside).
    await rm(join(workspace, 'c.txt'));
    expect((await store.locked(() => store.capture())).tree).toBe(after.tree);
    store.close();
  });
});

describe('CheckpointStore: what the stat pass of a later capture costs (issue 36)', () => {
  it('a file the index lags behind for is read once settled, then its lstat stands for it until it changes, in this store object or the next', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'aaaa', 'b.txt': 'b', 'sub/c.txt': 'c' });
    const store = await CheckpointStore.open(home, workspace);
    await snapshot(store);
    // Hashed here (two changes: under LAG_LIMIT), so the store's index lags behind for both and status reports them again.
    await put(workspace, 'a.txt', 'AAAA');
    await rm(join(workspace, 'sub/c.txt'));
    const second = await snapshot(store);
    expect(store.filesRead).toBe(1);
    // Changed too lately to be trusted by its times: read again. Then settled: its lstat is remembered.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await snapshot(store)).tree).toBe(second.tree);
    // 2 (1 where the machine took over 2 s from the write to the capture that read it: settled then already).
    const settled = store.filesRead;
    expect(settled).toBeLessThanOrEqual(2);
    expect((await snapshot(store)).tree).toBe(second.tree);
    expect(store.filesRead).toBe(settled);
    store.close();
    // Another process (a later `deft run`): the same.
    const later = await CheckpointStore.open(home, workspace);
    expect((await later.locked(() => later.capture())).tree).toBe(second.tree);
    expect(later.filesRead).toBe(0);
    // Changed between runs with the same size and its old times set back: its ctime tells, it is read and taken in.
    const before = await stat(join(workspace, 'a.txt'));
    await writeFile(join(workspace, 'a.txt'), 'BBBB');
    await utimes(join(workspace, 'a.txt'), before.atime, before.mtime);
    // A path the record has as empty, filled again.
    await put(workspace, 'sub/c.txt', 'c again');
    const third = await later.locked(() => later.capture());
    expect((await later.changes(second.tree, third.tree)).map((c) => [c.path, c.status])).toEqual([
      ['a.txt', 'modified'],
      ['sub/c.txt', 'added'],
    ]);
    expect((await later.entry(third.tree, 'a.txt'))?.blob).toBe(git(workspace, 'hash-object', 'a.txt').trim());
    expect(later.filesRead).toBe(2);
    later.close();
  });

  it("a new file in a folder whose times were set back is still seen (git's untracked cache checks the folder's ctime too)", async () => {
    const { workspace, home } = await setup({ 'src/a.txt': 'a', 'src/deep/b.txt': 'b' });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store);
    // The untracked cache is in the store's index: each folder's listing, checked by its times.
    const index = await readFile(join(store.places.gitDir, 'index'));
    expect(index.includes(Buffer.from('UNTR'))).toBe(true);
    for (const folder of ['src', 'src/deep']) {
      const before = await stat(join(workspace, folder));
      await put(workspace, `${folder}/new.txt`, 'new');
      await utimes(join(workspace, folder), before.atime, before.mtime);
    }
    const second = await snapshot(store);
    expect((await store.changes(first.tree, second.tree)).map((c) => c.path)).toEqual(['src/deep/new.txt', 'src/new.txt']);
    store.close();
  });
});

describe('CheckpointStore: what a capture of known paths costs (issue 36)', () => {
  it('a narrowed capture leaves out paths neither HEAD nor the workspace holds (a temporary file renamed away): no git runs for them', async () => {
    const { workspace, home } = await setup({ 'a.txt': 'a', 'src/b.txt': 'b', 'gone/c.txt': 'c' });
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store, 's1');
    const git = await loggedGit();
    try {
      // What a Write leaves the watch: its temporary file, renamed over the file it wrote.
      await put(workspace, 'src/b.txt', 'b2');
      const written = await store.locked(() => store.capture(['src/.b.txt.deft-1.tmp', 'src/b.txt', 'a.txt/under-a-file', 'nowhere/x.tmp']));
      expect(await git.calls()).toEqual([]);
      expect((await store.changes(first.tree, written.tree)).map((c) => c.path)).toEqual(['src/b.txt']);
      expect((await store.locked(() => store.capture(['src/.b.txt.deft-1.tmp']))).tree).toBe(first.tree);
      expect(await git.calls()).toEqual([]);
      // A folder HEAD holds, gone now: its files are gone from the capture (git's status walks what HEAD held there).
      await rm(join(workspace, 'gone'), { recursive: true });
      const removed = await store.locked(() => store.capture(['gone']));
      expect((await store.changes(first.tree, removed.tree)).map((c) => [c.path, c.status])).toEqual([['gone/c.txt', 'deleted']]);
      // A new file still goes through git's status (its ignore rules).
      await git.clear();
      await put(workspace, 'new.txt', 'n');
      expect(await store.entry((await store.locked(() => store.capture(['new.txt']))).tree, 'new.txt')).not.toBeNull();
      expect((await git.calls()).filter((c) => c.includes(' status '))).toHaveLength(1);
    } finally {
      git.restore();
      store.close();
    }
  });

  it('a capture of many files writes their blobs and the trees along them as one pack: no loose object per folder', async () => {
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`m${i % 4}/d${i}/f.txt`, `file ${i}\n`]));
    const { workspace, home } = await setup(files);
    const store = await CheckpointStore.open(home, workspace);
    const first = await snapshot(store, 's1');
    const loose = await store.looseObjects();
    for (const path of Object.keys(files)) await put(workspace, path, `${files[path]}edited\n`);
    const many = await store.locked(async () => store.record(await store.capture(Object.keys(files)), { session: 's1', kind: 'step' }));
    // The commit alone is loose; 40 blobs and 45 trees (40 folders, 4 above them, the root) are in the pack.
    expect(await store.looseObjects()).toBe(loose + 1);
    expect((await store.changes(first.tree, many.tree)).length).toBe(40);
    const gitDir = store.places.gitDir;
    await runGit(null, ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
    // The tree git makes of the same files.
    const places = { gitDir, workTree: workspace, indexFile: join(gitDir, 'index') };
    await runGit(places, ['add', '-A']);
    expect((await runGit(places, ['write-tree'])).stdout.toString().trim()).toBe(many.tree);
    // Read back in this process (a new store object: nothing remembered) as a full look compares with it.
    store.close();
    const again = await CheckpointStore.open(home, workspace);
    expect((await again.locked(() => again.capture(Object.keys(files).slice(0, 3)))).tree).toBe(many.tree);
    again.close();
  });
});
