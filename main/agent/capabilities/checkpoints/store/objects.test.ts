import { readFile, readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { runGit } from './git';
import { RefExistsError, TREE_MODE, commitBody, formatTree, objectId, parseTree, readRef, writeObject, writeRef } from './objects';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function bareStore(): Promise<{ gitDir: string; git: (...args: string[]) => Promise<string> }> {
  const gitDir = join(await tempDir('deft-objects-'), 'store.git');
  dirs.push(join(gitDir, '..'));
  await runGit(null, ['init', '--bare', '-q', '--template=', gitDir]);
  return { gitDir, git: async (...args) => (await runGit(null, ['--git-dir', gitDir, ...args])).stdout.toString('utf8') };
}

describe('objects and refs written in-process', () => {
  it('writes blobs, trees and commits git reads back, sorted as git sorts them, and fsck finds nothing wrong', async () => {
    const { gitDir, git } = await bareStore();
    const small = Buffer.from('hello\n');
    const large = Buffer.alloc(600 * 1024, 'x'); // past the synchronous limit: the other way of writing
    const blob = await writeObject(gitDir, 'blob', small);
    const big = await writeObject(gitDir, 'blob', large);
    expect(blob).toBe((await runGit(null, ['--git-dir', gitDir, 'hash-object', '--stdin', '--no-filters'], { input: small })).stdout.toString().trim());
    expect(await git('cat-file', '-p', blob)).toBe('hello\n');
    expect((await git('cat-file', '-s', big)).trim()).toBe(String(large.length));
    // Writing it again is a no-op with the same id.
    expect(await writeObject(gitDir, 'blob', small)).toBe(blob);

    // "a.b" < "a" (a folder, compared as "a/") < "a0", and a non-UTF-8 name survives.
    const odd = Buffer.from([0x6e, 0xff, 0x2e, 0x74]);
    const sub = await writeObject(gitDir, 'tree', formatTree([{ mode: '100644', name: Buffer.from('x'), id: blob }]));
    const entries = [
      { mode: '100644', name: Buffer.from('a0'), id: blob },
      { mode: TREE_MODE, name: Buffer.from('a'), id: sub },
      { mode: '100755', name: Buffer.from('a.b'), id: big },
      { mode: '120000', name: Buffer.from('link'), id: blob },
      { mode: '100644', name: odd, id: blob },
    ];
    const tree = await writeObject(gitDir, 'tree', formatTree(entries));
    const listed = await git('ls-tree', '-z', tree);
    expect(
      listed
        .split('\0')
        .filter(Boolean)
        .map((l) => l.split('\t')[1]),
    ).toEqual(['a.b', 'a', 'a0', 'link', Buffer.from(odd).toString('utf8')]);
    expect(parseTree(formatTree(entries)).map((e) => e.name.toString('latin1'))).toEqual(['a.b', 'a', 'a0', 'link', odd.toString('latin1')]);
    // git writes the same tree from the same entries.
    const mktree = (
      await runGit(null, ['--git-dir', gitDir, 'mktree', '-z'], {
        input: Buffer.concat(
          parseTree(formatTree(entries)).map((e) =>
            Buffer.concat([Buffer.from(`${e.mode} ${e.mode === TREE_MODE ? 'tree' : 'blob'} ${e.id}\t`), e.name, Buffer.from([0])]),
          ),
        ),
      })
    ).stdout
      .toString()
      .trim();
    expect(tree).toBe(mktree);

    const message = 'turn t1\n\n{"kind":"turn"}\n';
    const commit = await writeObject(gitDir, 'commit', Buffer.from(commitBody(tree, message, new Date(1_700_000_000_000))));
    expect((await git('cat-file', '-t', commit)).trim()).toBe('commit');
    expect((await git('log', '-1', '--format=%T%x00%an <%ae>%x00%at%x00%B', commit)).trim()).toBe(
      `${tree}\0Deft <checkpoints@deft.invalid>\x001700000000\0${message.trim()}`,
    );
    expect(objectId('commit', Buffer.from(commitBody(tree, message, new Date(1_700_000_000_000))))).toBe(commit);
    await writeRef(gitDir, 'refs/deft/s/00000001', commit, { create: true });
    await git('fsck', '--strict', '--no-dangling');
  });

  it('refuses a ref name that could leave the store or that git would refuse, and an id that is not one, writing nothing', async () => {
    const { gitDir } = await bareStore();
    const tree = await writeObject(gitDir, 'tree', Buffer.alloc(0));
    const commit = await writeObject(gitDir, 'commit', Buffer.from(commitBody(tree, 'one\n', new Date())));
    for (const ref of [
      'refs/deft/../../../outside',
      '../outside',
      'refs/deft/a..b/1',
      'refs/deft/.hidden/1',
      'refs/deft/s/1.lock',
      'refs//x',
      'config',
      '/tmp/x',
      'refs/deft/s/1\n',
    ]) {
      await expect(writeRef(gitDir, ref, commit), ref).rejects.toThrow(/Not a ref name/);
    }
    await expect(writeRef(gitDir, 'refs/deft/s/00000001', 'HEAD')).rejects.toThrow(/Not an object id/);
    expect(await readdir(join(gitDir, '..'))).toEqual([basename(gitDir)]);
  });

  it('creates refs as git does: for-each-ref sees them, a second create fails even once packed, HEAD moves', async () => {
    const { gitDir, git } = await bareStore();
    const tree = await writeObject(gitDir, 'tree', Buffer.alloc(0));
    const one = await writeObject(gitDir, 'commit', Buffer.from(commitBody(tree, 'one\n', new Date())));
    const two = await writeObject(gitDir, 'commit', Buffer.from(commitBody(tree, 'two\n', new Date(0))));
    await writeRef(gitDir, 'refs/deft/s/00000001', one, { create: true });
    await writeRef(gitDir, 'HEAD', one);
    expect(await git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(`refs/deft/s/00000001 ${one}\n`);
    expect((await git('rev-parse', 'HEAD')).trim()).toBe(one);
    await expect(writeRef(gitDir, 'refs/deft/s/00000001', two, { create: true })).rejects.toBeInstanceOf(RefExistsError);

    await git('pack-refs', '--all', '--prune');
    await expect(readFile(join(gitDir, 'refs/deft/s/00000001'))).rejects.toThrow();
    expect(await readRef(gitDir, 'refs/deft/s/00000001')).toBe(one);
    await expect(writeRef(gitDir, 'refs/deft/s/00000001', two, { create: true })).rejects.toBeInstanceOf(RefExistsError);
    // No lock is left behind by a refused create.
    await expect(readFile(join(gitDir, 'refs/deft/s/00000001.lock'))).rejects.toThrow();
    await writeRef(gitDir, 'refs/deft/s/00000002', two, { create: true });
    await writeRef(gitDir, 'HEAD', two);
    expect(await git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(`refs/deft/s/00000001 ${one}\nrefs/deft/s/00000002 ${two}\n`);
    expect((await git('rev-parse', 'HEAD')).trim()).toBe(two);
    await git('update-ref', '-d', 'refs/deft/s/00000001');
    expect(await readRef(gitDir, 'refs/deft/s/00000001')).toBeNull();
    await git('fsck', '--strict', '--no-dangling');
  });
});
