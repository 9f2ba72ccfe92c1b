import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '#test-support/harness';
import { loggedGit } from '#test-support/logged-git';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { isSensitiveFile, isSensitivePath } from '#infra/policies/sensitive';
import { SECRET_NAMES, SECRET_PLACES } from '#infra/policies/secret-places';
import { runGit } from './git';
import { CheckpointStore, PERSONAL_SETTINGS } from './store';

const dirs: string[] = [];
beforeEach(async () => {
  // The user's and the system's git config are read by the seeding: give it empty ones.
  const config = await tempDir('deft-seed-config-');
  dirs.push(config);
  await writeFile(join(config, 'empty'), '');
  vi.stubEnv('GIT_CONFIG_GLOBAL', join(config, 'empty'));
  vi.stubEnv('GIT_CONFIG_SYSTEM', join(config, 'empty'));
  vi.stubEnv('XDG_CONFIG_HOME', config);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }).toString();
}

async function put(root: string, path: string, content: string): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
}

/** A committed repository, then changes after the commit. */
async function repository(files: Record<string, string>, after: Record<string, string> = {}) {
  const workspace = await tempDir('deft-seed-ws-');
  const home = await tempDir('deft-seed-home-');
  dirs.push(workspace, home);
  for (const [path, content] of Object.entries(files)) await put(workspace, path, content);
  git(workspace, 'init', '-q');
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-qm', 'init');
  for (const [path, content] of Object.entries(after)) await put(workspace, path, content);
  return { workspace, home };
}

async function capture(home: string, workspace: string, options: { maxFileBytes?: number } = {}) {
  const store = await CheckpointStore.open(home, workspace, options);
  const checkpoint = await store.locked(async () => store.record(await store.capture(), { session: 's1', kind: 'turn' }));
  return { store, checkpoint };
}

async function paths(store: CheckpointStore, tree: string): Promise<string[]> {
  const out = await runGit({ gitDir: store.places.gitDir, workTree: store.places.workspace, indexFile: join(store.places.gitDir, 'index') }, [
    'ls-tree',
    '-r',
    '--name-only',
    tree,
  ]);
  return out.stdout.toString('utf8').split('\n').filter(Boolean).sort();
}

describe('a new store seeded from the repository', () => {
  const files = {
    'src/a.ts': 'export const a = 1;\n',
    'src/b.ts': 'export const b = 2;\n',
    'README.md': '# r\n',
    '.env': 'TOKEN=secret\n',
    'big.bin': 'x'.repeat(5_000),
  };

  it('starts from the repository index and objects, takes in what changed since and untracked files, leaves out secrets and large files, and matches a store made by hashing every file', async () => {
    const { workspace, home } = await repository(files, { 'src/b.ts': 'export const b = 3;\n', 'new.txt': 'untracked\n' });
    const { store, checkpoint } = await capture(home, workspace, { maxFileBytes: 1_000 });
    expect(await store.borrows()).toBe(true);
    expect(await paths(store, checkpoint.tree)).toEqual(['README.md', 'new.txt', 'src/a.ts', 'src/b.ts']);
    // The same files, with no repository around them: every file hashed by the store, the same tree.
    const copy = await tempDir('deft-seed-copy-');
    const otherHome = await tempDir('deft-seed-home2-');
    dirs.push(copy, otherHome);
    await cp(workspace, copy, { recursive: true, filter: (source) => !source.includes('/.git') });
    const plain = await capture(otherHome, copy, { maxFileBytes: 1_000 });
    expect(await plain.store.borrows()).toBe(false);
    expect(checkpoint.tree).toBe(plain.checkpoint.tree);
    plain.store.close();

    // A rewind reads the borrowed objects; once the store owns them, the repository's may go.
    await writeFile(join(workspace, 'src/a.ts'), 'changed\n');
    await store.locked(() => store.restore(checkpoint.tree, ['src/a.ts']));
    expect(await readFile(join(workspace, 'src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    await store.locked(() => store.ownObjects());
    expect(await store.borrows()).toBe(false);
    await rm(join(workspace, '.git'), { recursive: true, force: true });
    await writeFile(join(workspace, 'README.md'), 'changed\n');
    await store.locked(() => store.restore(checkpoint.tree, ['README.md']));
    expect(await readFile(join(workspace, 'README.md'), 'utf8')).toBe('# r\n');
    await runGit(null, ['--git-dir', store.places.gitDir, 'fsck', '--strict', '--no-dangling']);
    store.close();
  });

  it('holds exactly the workspace as git sees it, less what the store leaves out: every secret of the list in any place and case, by name or by content, kept where exempt; tracked, modified, untracked and tracked-but-ignored files; nested repositories, large files and personal settings out', async () => {
    const secretNames = [
      ...SECRET_NAMES.flatMap((group) => group.names),
      ...SECRET_PLACES.map((place) => (place.dir ? `${place.path}/inside.txt` : place.path)),
      '.env.local',
      'id_rsa.bak',
      '.deft/secrets.json',
      // Non-ASCII: the Kelvin sign lower-cases to "k", so this is .kube/config.
      '.\u212aube/config',
    ];
    const tracked: Record<string, string> = {
      '.gitignore': 'ignored/\n*.log\n',
      'src/a.ts': 'a\n',
      'src/b.ts': 'b\n',
      'src/gone.ts': 'gone\n',
      'src/naïve.ts': 'n\n',
      'ignored/tracked.txt': 'tracked although ignored\n',
      'kept.log': 'tracked although ignored\n',
      '.env.example': 'TOKEN=\n',
      'id_rsa.pub': 'ssh-ed25519 AAAA\n',
      '.ssh/known_hosts': 'host\n',
      'certs/server.pem': '-----BEGIN CERTIFICATE-----\n',
      'certs/private.pem': '-----BEGIN PRIVATE KEY-----\n',
      'pkg/.npmrc': 'registry=https://example.invalid/\n',
      'app/.npmrc': '//registry/:_authToken=abc\n',
      [PERSONAL_SETTINGS]: '{}\n',
      'big.bin': 'x'.repeat(5_000),
    };
    for (const folder of ['', 'deep/er/', 'Upper/'])
      for (const name of secretNames) {
        tracked[`${folder}${name}`] = 'secret\n';
        tracked[`${folder}${name.toUpperCase()}`] = 'secret\n';
      }
    for (let i = 0; i < 300; i++) tracked[`src/m${i % 3}/f${i}.ts`] = `export const f${i} = ${i};\n`;
    const { workspace, home } = await repository(tracked, {
      'src/b.ts': 'b changed\n',
      'new.txt': 'untracked\n',
      'ignored/new.txt': 'ignored\n',
      'new.log': 'ignored\n',
    });
    await rm(join(workspace, 'src/gone.ts'));
    // Tracked although ignored (the repository's `add -A` left them out).
    git(workspace, 'add', '-f', 'ignored/tracked.txt', 'kept.log');
    git(workspace, 'commit', '-qm', 'ignored');
    // A nested repository, tracked as a gitlink.
    await put(workspace, 'vendor/lib/x.ts', 'x\n');
    git(join(workspace, 'vendor/lib'), 'init', '-q');
    git(join(workspace, 'vendor/lib'), 'add', '-A');
    git(join(workspace, 'vendor/lib'), 'commit', '-qm', 'lib');
    git(workspace, '-c', 'advice.addEmbeddedRepo=false', 'add', 'vendor/lib');
    git(workspace, 'commit', '-qm', 'lib');
    git(workspace, 'reset', '-q');

    // What git says the workspace holds: the tracked files there, and the untracked ones not ignored.
    const listed = (...args: string[]) =>
      git(workspace, '-c', 'core.quotePath=false', 'ls-files', '-z', ...args)
        .split('\0')
        .filter(Boolean);
    const gitlinks = new Set(
      git(workspace, 'ls-files', '-s', '-z')
        .split('\0')
        .filter((l) => l.startsWith('160000'))
        .map((l) => l.split('\t')[1]),
    );
    const deleted = new Set(listed('--deleted'));
    const present = [...new Set([...listed(), ...listed('--others', '--exclude-standard')])].filter((path) => !gitlinks.has(path) && !deleted.has(path));
    const expected: string[] = [];
    for (const path of present) {
      const full = join(workspace, path);
      if (path === PERSONAL_SETTINGS || (await stat(full)).size > 1_000) continue;
      if (isSensitivePath(path) || (await isSensitiveFile(localEnvironment(), full, { workspace }))) continue;
      expected.push(path);
    }
    expect(expected).toContain('ignored/tracked.txt');
    expect(expected).toContain('certs/server.pem');
    expect(expected).not.toContain('certs/private.pem');
    expect(expected).not.toContain('.\u212aube/config');
    expect(present.length - expected.length).toBeGreaterThan(secretNames.length * 3);

    const { store, checkpoint } = await capture(home, workspace, { maxFileBytes: 1_000 });
    expect(await store.borrows()).toBe(true);
    const out = await runGit({ gitDir: store.places.gitDir, workTree: workspace, indexFile: join(store.places.gitDir, 'index') }, [
      '-c',
      'core.quotePath=false',
      'ls-tree',
      '-r',
      '-z',
      checkpoint.tree,
    ]);
    const held = new Map(
      out.stdout
        .toString('utf8')
        .split('\0')
        .filter(Boolean)
        .map((line) => [line.slice(line.indexOf('\t') + 1), line.slice(line.indexOf('\t') - 40, line.indexOf('\t'))] as const),
    );
    expect([...held.keys()].sort()).toEqual([...expected].sort());
    // Each file's blob is its bytes in the workspace now.
    const ids = execFileSync('git', ['hash-object', '--no-filters', '--stdin-paths'], { cwd: workspace, input: expected.join('\n') })
      .toString()
      .trim()
      .split('\n');
    expect(expected.map((path) => held.get(path))).toEqual(ids);
    store.close();
  });

  it('takes the first capture with one status and no write-tree: the tree of the repository index, less what the store leaves out, is its HEAD until the first checkpoint', async () => {
    const { workspace, home } = await repository(files, { 'src/b.ts': 'export const b = 3;\n', 'new.txt': 'untracked\n' });
    const git = await loggedGit();
    try {
      const { store, checkpoint } = await capture(home, workspace, { maxFileBytes: 1_000 });
      // The seeding takes the secret and the large file out of the index (one update-index), then one status lists
      // only the changed and the untracked file (not every tracked file as new), and the tree is made here.
      const commands = (await git.calls()).map((line) => line.split(' ').find((word, i, all) => all[i - 1] !== '-c' && word !== '-c'));
      expect(commands).toEqual(['update-index', 'status']);
      expect(store.provisionalHead).toBe(false);
      expect(await paths(store, checkpoint.tree)).toEqual(['README.md', 'new.txt', 'src/a.ts', 'src/b.ts']);
      expect((await store.blob((await store.entry(checkpoint.tree, 'src/b.ts'))!.blob)).toString()).toBe('export const b = 3;\n');
      store.close();
    } finally {
      git.restore();
    }
  });

  it('starts again when the store was left with the seeded HEAD and no checkpoint (a warm-up, or Deft stopped): nothing is narrowed on top of it', async () => {
    const { workspace, home } = await repository(files);
    const first = await CheckpointStore.open(home, workspace);
    await first.locked(() => first.capture());
    expect(first.provisionalHead).toBe(true);
    // A narrowed look (the files a Write names) is a whole one while HEAD is only the seeded tree: the untracked file is in.
    await put(workspace, 'untracked.txt', 'u\n');
    const narrowed = await first.locked(() => first.capture([join('src', 'a.ts')]));
    expect(await paths(first, narrowed.tree)).toContain('untracked.txt');
    first.close();
    await rm(join(workspace, 'untracked.txt'));
    await put(workspace, 'later.txt', 'later\n');
    const second = await CheckpointStore.open(home, workspace);
    expect(await second.headTree()).toBeNull();
    const checkpoint = await second.locked(async () => second.record(await second.capture(), { session: 's1', kind: 'turn' }));
    expect(await paths(second, checkpoint.tree)).toEqual(['README.md', 'big.bin', 'later.txt', 'src/a.ts', 'src/b.ts']);
    expect(second.provisionalHead).toBe(false);
    second.close();
  });

  it('writes the index’s own tree where the index’s cache-tree names another tree than its entries make', async () => {
    const { workspace, home } = await repository(files);
    const stale = await readFile(join(workspace, '.git', 'index'));
    await put(workspace, 'src/b.ts', 'export const b = 4;\n');
    git(workspace, 'commit', '-qam', 'b');
    // The new index's entries with the old index's cache-tree (same count of entries, the first commit's tree).
    const fresh = await readFile(join(workspace, '.git', 'index'));
    const tree = (index: Buffer) => index.indexOf('TREE', 12);
    const forged = Buffer.concat([fresh.subarray(0, tree(fresh)), stale.subarray(tree(stale), stale.length - 20)]);
    const { createHash } = await import('node:crypto');
    await writeFile(join(workspace, '.git', 'index'), Buffer.concat([forged, createHash('sha1').update(forged).digest()]));
    expect(git(workspace, 'ls-files', '-s', 'src/b.ts')).toContain(git(workspace, 'rev-parse', 'HEAD:src/b.ts').trim());
    const { store, checkpoint } = await capture(home, workspace);
    expect((await store.blob((await store.entry(checkpoint.tree, 'src/b.ts'))!.blob)).toString()).toBe('export const b = 4;\n');
    expect(store.provisionalHead).toBe(false);
    store.close();
  });

  it('hashes every file instead where a blob may not be the bytes of its file: .gitattributes, line-ending config, assume-unchanged entries', async () => {
    const cases: Array<(workspace: string) => Promise<void> | void> = [
      async (workspace) => {
        await put(workspace, 'sub/.gitattributes', '*.ts text eol=crlf\n');
        git(workspace, 'add', '-A');
        git(workspace, 'commit', '-qm', 'attributes');
      },
      (workspace) => void git(workspace, 'config', 'core.autocrlf', 'input'),
      (workspace) => void git(workspace, 'update-index', '--assume-unchanged', 'src/a.ts'),
    ];
    for (const prepare of cases) {
      const { workspace, home } = await repository(files);
      await prepare(workspace);
      const { store, checkpoint } = await capture(home, workspace);
      expect(await store.borrows()).toBe(false);
      expect(await paths(store, checkpoint.tree)).toContain('src/a.ts');
      store.close();
    }
  });

  it('sees a file changed in the same second as the index was written (the copy keeps the index time)', async () => {
    const { workspace, home } = await repository(files);
    const indexTime = (await stat(join(workspace, '.git', 'index'))).mtime;
    // Same size, new bytes, and the index's own time: only git's racy-file rule tells it changed.
    await writeFile(join(workspace, 'src/a.ts'), 'export const a = 9;\n');
    await utimes(join(workspace, 'src/a.ts'), indexTime, indexTime);
    const { store, checkpoint } = await capture(home, workspace);
    expect(await store.borrows()).toBe(true);
    await writeFile(join(workspace, 'src/a.ts'), 'other\n');
    await store.locked(() => store.restore(checkpoint.tree, ['src/a.ts']));
    expect(await readFile(join(workspace, 'src/a.ts'), 'utf8')).toBe('export const a = 9;\n');
    store.close();
  });
});
