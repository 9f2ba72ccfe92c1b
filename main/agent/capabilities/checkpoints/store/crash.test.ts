import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { runGit } from './git';
import { CheckpointStore } from './store';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const module = fileURLToPath(new URL('./store.ts', import.meta.url));
const FILES = 300;
const name = (i: number) => `src/part${i % 10}/file${i}.txt`;

async function fill(workspace: string, content: (i: number) => string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    await mkdir(join(workspace, name(i), '..'), { recursive: true });
    await writeFile(join(workspace, name(i)), content(i));
  }
}

/** A child process running `body` against the store (as `store`), saying "go" on stdout just before. */
function child(home: string, workspace: string, body: string): ChildProcess {
  const script = `
    import { CheckpointStore } from ${JSON.stringify(module)};
    const store = await CheckpointStore.open(${JSON.stringify(home)}, ${JSON.stringify(workspace)});
    process.stdout.write('go\\n');
    ${body}
    process.stdout.write('done\\n');`;
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

function said(proc: ChildProcess, word: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(word)) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`child exited (${code}) before saying ${word}: ${out}`)));
  });
}

async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGKILL');
  await exited;
}

async function contents(workspace: string): Promise<string[]> {
  return Promise.all(Array.from({ length: FILES }, (_, i) => readFile(join(workspace, name(i)), 'utf8').catch(() => '<missing>')));
}

describe('CheckpointStore after a kill -9', () => {
  it('finishes a rewind the process died in the middle of, the next time the store opens', async () => {
    const workspace = await tempDir('deft-crash-ws-');
    const home = await tempDir('deft-crash-home-');
    dirs.push(workspace, home);
    await fill(workspace, (i) => `old ${i}\n`);
    const store = await CheckpointStore.open(home, workspace);
    const old = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    await fill(workspace, (i) => `new ${i}\n`);
    await rm(join(workspace, name(7)));
    await writeFile(join(workspace, 'created.txt'), 'created after');
    const current = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn-end' }));
    const paths = (await store.changes(current.tree, old.tree)).map((c) => c.path);
    expect(paths).toHaveLength(FILES + 1);

    // Kill the rewinding process once some files are back and others not yet.
    const proc = child(home, workspace, `await store.locked(() => store.restore(${JSON.stringify(old.tree)}, ${JSON.stringify(paths)}));`);
    await said(proc, 'go');
    for (;;) {
      const now = await contents(workspace);
      if (now.some((c) => c.startsWith('old'))) break;
      if (proc.exitCode !== null) throw new Error('the rewind finished before it could be interrupted');
      await new Promise((r) => setTimeout(r, 2));
    }
    await kill(proc);
    const half = await contents(workspace);
    expect(half.some((c) => c.startsWith('old'))).toBe(true);
    expect(half.some((c) => c.startsWith('new'))).toBe(true);
    expect((await readdir(store.places.gitDir)).includes('deft-rewind.json')).toBe(true);

    // Opening the store again finishes the rewind: the workspace is all old, nothing half.
    const reopened = await CheckpointStore.open(home, workspace);
    expect(await contents(workspace)).toEqual(Array.from({ length: FILES }, (_, i) => `old ${i}\n`));
    await expect(stat(join(workspace, 'created.txt'))).rejects.toThrow();
    const leftovers = (await readdir(join(workspace, 'src/part0'))).filter((n) => n.endsWith('.tmp'));
    expect(leftovers).toEqual([]);
    // And it still works.
    const after = await reopened.locked(async () => reopened.record(await reopened.capture(), { session: 's', kind: 'turn' }));
    expect(after.tree).toBe(old.tree);
  }, 60_000);

  it('keeps working after a process dies while taking a checkpoint, which never changes the workspace', async () => {
    const workspace = await tempDir('deft-crash-ws-');
    const home = await tempDir('deft-crash-home-');
    dirs.push(workspace, home);
    await fill(workspace, (i) => `content ${i}\n`);
    const before = await contents(workspace);
    let locksLeft = 0;
    for (const delay of [5, 40, 120]) {
      await fill(workspace, (i) => `content ${i} at ${delay}\n`);
      const expected = await contents(workspace);
      const proc = child(home, workspace, `for (;;) await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'step' }));`);
      await said(proc, 'go');
      await new Promise((r) => setTimeout(r, delay));
      await kill(proc);
      // The dead process held the store's lock (and maybe git's own index or ref locks): the next open takes them over.
      if (await stat(`${join(home, 'checkpoints', (await readdir(join(home, 'checkpoints'))).find((n) => n.endsWith('.git'))!)}.lock`).catch(() => null))
        locksLeft++;
      expect(await contents(workspace)).toEqual(expected);
    }
    expect(locksLeft).toBeGreaterThan(0);
    expect(before).not.toEqual(await contents(workspace));
    const store = await CheckpointStore.open(home, workspace);
    const checkpoint = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    await writeFile(join(workspace, name(3)), 'changed\n');
    const next = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    expect((await store.changes(checkpoint.tree, next.tree)).map((c) => c.path)).toEqual([name(3)]);
    await store.locked(() => store.restore(checkpoint.tree, [name(3)]));
    expect(await readFile(join(workspace, name(3)), 'utf8')).toBe('content 3 at 120\n');
    // Three child processes, each loading the store and taking checkpoints until killed: 17 s alone here,
    // 94 s beside a full e2e run on two cores.
  }, 180_000);

  it('keeps a valid object store when a process dies while writing objects and refs itself (one file changed per checkpoint)', async () => {
    const workspace = await tempDir('deft-crash-ws-');
    const home = await tempDir('deft-crash-home-');
    dirs.push(workspace, home);
    await fill(workspace, (i) => `content ${i}\n`);
    const first = await CheckpointStore.open(home, workspace);
    await first.locked(async () => first.record(await first.capture(), { session: 's', kind: 'turn' }));
    first.close();
    const expected = await contents(workspace);
    for (const delay of [5, 40, 120]) {
      // Each round changes one file outside the checked ones, so each checkpoint writes a blob, trees, a commit and refs here.
      const body = `for (let i = 0; ; i++) {
        await (await import('node:fs/promises')).writeFile(${JSON.stringify(join(workspace, 'churn', 'n.txt'))}.replace('n.txt', 'n' + (i % 3) + '.txt'), String(i));
        await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'step' }));
      }`;
      await mkdir(join(workspace, 'churn'), { recursive: true });
      const proc = child(home, workspace, body);
      await said(proc, 'go');
      await new Promise((r) => setTimeout(r, delay));
      await kill(proc);
      expect(await contents(workspace)).toEqual(expected);
    }
    const store = await CheckpointStore.open(home, workspace);
    await runGit(null, ['--git-dir', store.places.gitDir, 'fsck', '--strict', '--no-dangling']);
    const before = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    await writeFile(join(workspace, name(5)), 'changed\n');
    const after = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    expect((await store.changes(before.tree, after.tree)).map((c) => c.path)).toEqual([name(5)]);
    await store.locked(() => store.restore(before.tree, [name(5)]));
    expect(await readFile(join(workspace, name(5)), 'utf8')).toBe('content 5\n');
    const list = await store.list('s');
    expect(list.at(-1)!.seq).toBe(after.seq);
    expect(new Set(list.map((c) => c.seq)).size).toBe(list.length);
    await runGit(null, ['--git-dir', store.places.gitDir, 'fsck', '--strict', '--no-dangling']);
    store.close();
  }, 180_000);
});
