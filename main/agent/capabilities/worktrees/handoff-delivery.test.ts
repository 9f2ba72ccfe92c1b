import { execFileSync } from 'node:child_process';
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { INBOX_MAX_BYTES, inboxDir, postToInbox } from '#infra/sessions/inbox';
import { createHarness, tempDir } from '#test-support/harness';
import { waitFor } from '#test-support/wait';

type Harness = Awaited<ReturnType<typeof createHarness>>;
const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0).reverse()) await h.dispose();
});
const harness = async (options: Parameters<typeof createHarness>[0]) => {
  const h = await createHarness(options);
  harnesses.push(h);
  return h;
};

const plain = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

async function repository(): Promise<string> {
  const repo = await tempDir('deft-wt-inbox-');
  plain(repo, ['init', '-q', '-b', 'main']);
  plain(repo, ['config', 'user.email', 'a@b.c']);
  plain(repo, ['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'one\ntwo\n');
  plain(repo, ['add', '.']);
  plain(repo, ['commit', '-qm', 'first']);
  return repo;
}

const asked = (h: Harness, text: string) => h.server.requests.filter((r) => JSON.stringify(r.body.messages).includes(text));

describe('Resolve in that session: the conflict prompt reaches the worktree’s session in another core', { timeout: 90_000 }, () => {
  it('is posted to the worktree’s newest session and taken exactly once, by one of two cores open on the worktree', async () => {
    const repo = await repository();
    const main = await harness({ workspace: repo });
    const tree = (await main.core.handlers.createWorktree({ name: 'login' })).worktree;
    // Two cores on the worktree (two windows, in real use), sharing Deft's home with the main checkout's.
    const first = await harness({ workspace: tree.path, home: main.home });
    const second = await harness({ workspace: tree.path, home: main.home });
    await writeFile(join(tree.path, 'app.txt'), 'one\nTWO\n');
    await writeFile(join(repo, 'app.txt'), 'one\n2\n');
    plain(repo, ['commit', '-qam', 'two on main']);
    expect(await main.core.handlers.mergeWorktree({ name: 'login' })).toMatchObject({ status: 'conflict', files: ['app.txt'] });

    const handed = await main.core.handlers.handWorktreeConflict({ name: 'login' });
    expect(handed).toMatchObject({ status: 'conflict', files: ['app.txt'], sent: { sessionId: second.session.id, created: false } });
    // The second core (or the first: whichever takes it) runs it as that session's next prompt; the model gets it once.
    const line = 'so the conflict markers are in these files of this worktree';
    await waitFor(() => asked(first, line).length + asked(second, line).length > 0, 15_000);
    await second.core.settled(second.session.id);
    await first.core.settled(second.session.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(asked(first, line).length + asked(second, line).length).toBe(1);
    expect(JSON.stringify((asked(first, line)[0] ?? asked(second, line)[0])!.body.messages)).toContain('- app.txt');
    expect((await readdir(inboxDir(main.home, tree.path))).filter((n) => !n.startsWith('.'))).toEqual([]);
    // The main checkout's own session was never given it.
    expect(asked(main, line)).toEqual([]);
  });

  it('while no core has the worktree open, the main checkout’s list says a conflict waits for its session; opening it takes it', async () => {
    const repo = await repository();
    const main = await harness({ workspace: repo });
    const tree = (await main.core.handlers.createWorktree({ name: 'later' })).worktree;
    await writeFile(join(tree.path, 'app.txt'), 'one\nTWO\n');
    await writeFile(join(repo, 'app.txt'), 'one\n2\n');
    plain(repo, ['commit', '-qam', 'two on main']);
    const handed = await main.core.handlers.handWorktreeConflict({ name: 'later' });
    expect(handed).toMatchObject({ status: 'conflict', sent: { created: true } });
    const id = handed.sent!.sessionId;
    expect((await main.core.handlers.listWorktrees({})).worktrees[0]).toMatchObject({ name: 'later', conflictWaiting: id });
    expect((await main.core.handlers.worktreesLive({})).worktrees[0]).toMatchObject({ name: 'later', conflictWaiting: id });
    // The worktree's window opens (a core on its folder): it takes the prompt at its start and runs it.
    const there = await harness({ workspace: tree.path, home: main.home });
    await waitFor(() => asked(there, 'so the conflict markers are in these files').length > 0, 15_000);
    await there.core.settled(id);
    expect((await main.core.handlers.worktreesLive({})).worktrees[0]!.conflictWaiting).toBeUndefined();
    expect(asked(main, 'so the conflict markers are in these files')).toEqual([]);
  });

  it('behind a running turn it waits in the queue (shown queued), then runs; invalid mail is dropped, never run', async () => {
    const repo = await repository();
    const main = await harness({ workspace: repo });
    const tree = (await main.core.handlers.createWorktree({ name: 'busy' })).worktree;
    const there = await harness({ workspace: tree.path, home: main.home });
    const id = there.session.id;
    there.server.enqueue({ chunks: [{ text: 'working' }, { finish: 'stop' }], delayMs: 1_000 });
    await there.core.handlers.sendPrompt({ sessionId: id, text: 'first job' });
    const dir = inboxDir(main.home, tree.path);
    // What another process could leave there: a link, an oversized file, a bad shape, a message for another session.
    await mkdir(dir, { recursive: true });
    await symlink('/etc/passwd', join(dir, `${id}.1-aaaaaaaaaaaa.json`));
    await writeFile(join(dir, `${id}.2-bbbbbbbbbbbb.json`), 'x'.repeat(INBOX_MAX_BYTES + 1));
    await writeFile(
      join(dir, `${id}.3-cccccccccccc.json`),
      JSON.stringify({ v: 1, kind: 'command', sessionId: id, text: 'rm -rf /', from: 'x', createdAt: 3 }),
    );
    await postToInbox(dir, { sessionId: id, text: 'resolve the conflict please', from: 'test', createdAt: 4 });
    const queued = await waitFor(() => there.sessionEvents('prompt.queued').find((e) => JSON.stringify(e).includes('resolve the conflict please')), 10_000);
    expect(queued).toBeTruthy();
    await waitFor(() => asked(there, 'resolve the conflict please').length > 0, 15_000);
    await there.core.settled(id);
    expect(there.server.requests.map((r) => JSON.stringify(r.body.messages)).filter((m) => m.includes('rm -rf') || m.includes('root:'))).toEqual([]);
    expect(asked(there, 'resolve the conflict please')).toHaveLength(1);
    expect((await readdir(dir)).filter((n) => !n.startsWith('.'))).toEqual([]);
  });
});
