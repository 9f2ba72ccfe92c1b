import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

let h: Awaited<ReturnType<typeof createHarness>> | undefined;
const others: Array<Awaited<ReturnType<typeof createHarness>>> = [];
afterEach(async () => {
  for (const other of others.splice(0)) await other.dispose();
  await h?.dispose();
  h = undefined;
});

const plain = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

async function repository(): Promise<string> {
  const repo = await tempDir('deft-wt-cap-');
  plain(repo, ['init', '-q', '-b', 'main']);
  plain(repo, ['config', 'user.email', 'a@b.c']);
  plain(repo, ['config', 'user.name', 'A']);
  await writeFile(join(repo, 'app.txt'), 'one\ntwo\n');
  plain(repo, ['add', '.']);
  plain(repo, ['commit', '-qm', 'first']);
  return repo;
}

describe('the worktrees commands', { timeout: 90_000 }, () => {
  it('list, create, merge, apply and discard for the workspace’s repository', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const { handlers } = h.core;
    expect(await handlers.listWorktrees({})).toEqual({ repoRoot: repo, worktrees: [] });
    const created = await handlers.createWorktree({ name: 'one' });
    expect(created.worktree).toMatchObject({ name: 'one', branch: 'deft/one', baseBranch: 'main', state: 'ok', changedFiles: [] });
    // Without a window to open (here, the web host, the CLI) it says where the folder is.
    expect(await handlers.openWorktree({ name: 'one' })).toEqual({ opened: false, path: created.worktree.path });
    await writeFile(join(created.worktree.path, 'app.txt'), 'one\nTWO\n');
    expect((await handlers.listWorktrees({})).worktrees).toMatchObject([{ name: 'one', changedFiles: ['app.txt'], dirty: true }]);
    const two = await handlers.createWorktree({ name: 'two' });
    await writeFile(join(two.worktree.path, 'app.txt'), 'one\n2\n');
    expect(await handlers.mergeWorktree({ name: 'one', squash: true, message: 'Capitals' })).toMatchObject({
      status: 'merged',
      squashed: true,
      files: ['app.txt'],
    });
    expect(await handlers.mergeWorktree({ name: 'two' })).toEqual({ status: 'conflict', baseBranch: 'main', files: ['app.txt'] });
    expect(await handlers.applyWorktree({ name: 'two' })).toMatchObject({ status: 'conflict', files: ['app.txt'] });
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(await handlers.discardWorktree({ name: 'two', deleteBranch: true })).toEqual({ removed: two.worktree.path, branchDeleted: true });
    expect(existsSync(two.worktree.path)).toBe(false);
  });

  it('a worktree’s changes against its base, file by file with hunks, committed or not', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const { handlers } = h.core;
    expect(await handlers.worktreesLive({})).toEqual({ worktrees: [] });
    const { worktree } = await handlers.createWorktree({ name: 'diffed' });
    expect(await handlers.worktreeChanges({ name: 'diffed' })).toMatchObject({ files: [], more: 0 });
    await writeFile(join(worktree.path, 'app.txt'), 'one\nTWO\n');
    plain(worktree.path, ['commit', '-qam', 'capital']);
    await writeFile(join(worktree.path, 'new.txt'), 'fresh\n');
    await writeFile(join(worktree.path, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255]));
    const changes = await handlers.worktreeChanges({ name: 'diffed' });
    expect(changes.files.map((f) => [f.path, f.status, f.binary])).toEqual([
      ['app.txt', 'modified', false],
      ['blob.bin', 'added', true],
      ['new.txt', 'added', false],
    ]);
    expect(changes.files[0]).toMatchObject({
      added: 1,
      removed: 1,
      hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' one', '-two', '+TWO'] }],
    });
    expect(changes.files[2]).toMatchObject({ added: 1, removed: 0, hunks: [{ oldStart: 0, oldLines: 0, lines: ['+fresh'] }] });
    expect(changes.files[1]).toMatchObject({ added: null, removed: null, hunks: [] });
    // Nothing was committed or changed by looking.
    expect(plain(worktree.path, ['status', '--porcelain'])).toContain('?? new.txt');
    await expect(handlers.worktreeChanges({ name: 'nope' })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('merges exactly what the Changes view showed: refused, nothing changed, when its files or its branch moved since', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const { handlers } = h.core;
    const { worktree } = await handlers.createWorktree({ name: 'shown' });
    await writeFile(join(worktree.path, 'app.txt'), 'one\nTWO\n');
    const shown = await handlers.worktreeChanges({ name: 'shown' });
    expect(shown).toMatchObject({ head: expect.stringMatching(/^[0-9a-f]{40}$/), tree: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const head = plain(repo, ['rev-parse', 'main']);
    // The agent there writes more after the user looked.
    await writeFile(join(worktree.path, 'later.txt'), 'not seen\n');
    await expect(handlers.mergeWorktree({ name: 'shown', expect: { head: shown.head, tree: shown.tree } })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('its files changed since its changes were shown: nothing was merged'),
    });
    expect(plain(repo, ['rev-parse', 'main'])).toBe(head);
    expect(plain(worktree.path, ['status', '--porcelain'])).toContain('?? later.txt');
    // Or commits: the branch moved.
    plain(worktree.path, ['add', '.']);
    plain(worktree.path, ['commit', '-qm', 'later']);
    await expect(handlers.mergeWorktree({ name: 'shown', expect: { head: shown.head, tree: shown.tree } })).rejects.toMatchObject({
      message: expect.stringContaining('its branch deft/shown moved'),
    });
    // Looked at again: merged, and the merge brings what was shown.
    const again = await handlers.worktreeChanges({ name: 'shown' });
    expect(await handlers.mergeWorktree({ name: 'shown', expect: { head: again.head, tree: again.tree } })).toMatchObject({
      status: 'merged',
      files: again.files.map((f) => f.path),
    });
    expect(plain(repo, ['rev-parse', 'main^{tree}']).trim()).toBe(again.tree);
    await expect(handlers.mergeWorktree({ name: 'shown', expect: { head: 'HEAD', tree: again.tree } })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses readably: a bad name, an unknown worktree; outside a repository the list says why', async () => {
    h = await createHarness();
    expect(await h.core.handlers.listWorktrees({})).toMatchObject({
      repoRoot: null,
      reason: expect.stringContaining('not inside a git repository'),
      worktrees: [],
    });
    const repo = await repository();
    await h.dispose();
    h = await createHarness({ workspace: repo });
    await expect(h.core.handlers.createWorktree({ name: '../up' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('not a worktree name'),
    });
    await expect(h.core.handlers.mergeWorktree({ name: 'nope' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('no worktree named'),
    });
  });

  it('a deleted session takes its worktree along only when nothing would be lost', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const main = h.core.handlers;
    const inside = async (path: string) => {
      const opened = await createHarness({ workspace: path, home: h!.home });
      others.push(opened);
      // Each harness starts with a session: the first one in the worktree.
      return { handlers: opened.core.handlers, first: opened.session };
    };
    const branches = () => plain(repo, ['branch', '--list', 'deft/*']);

    // Never used: removed with its branch.
    const idle = (await main.createWorktree({ name: 'idle' })).worktree;
    const { handlers: there, first: session } = await inside(idle.path);
    expect(session.worktree).toEqual({ name: 'idle', branch: 'deft/idle', baseBranch: 'main', repoRoot: repo });
    expect(await there.deleteSession({ sessionId: session.id })).toEqual({
      ok: true,
      worktree: { name: 'idle', branch: 'deft/idle', path: idle.path, removed: true, reason: expect.stringContaining('removed with its branch') },
    });
    expect(existsSync(idle.path)).toBe(false);
    expect(branches()).not.toContain('deft/idle');

    // Work in it: kept while another session ran there, kept while it has changes, removed once merged.
    const work = (await main.createWorktree({ name: 'work' })).worktree;
    const { handlers: busy, first: opened } = await inside(work.path);
    const first = opened.id;
    const second = (await busy.createSession({})).session.id;
    await writeFile(join(work.path, 'app.txt'), 'one\nTWO\n');
    expect((await busy.deleteSession({ sessionId: first })).worktree).toMatchObject({ removed: false, reason: expect.stringContaining('1 other session') });
    expect((await busy.deleteSession({ sessionId: second })).worktree).toMatchObject({
      removed: false,
      reason: expect.stringContaining('uncommitted changes'),
    });
    expect(await readFile(join(work.path, 'app.txt'), 'utf8')).toBe('one\nTWO\n');
    plain(work.path, ['commit', '-qam', 'Capitals']);
    const third = (await busy.createSession({})).session.id;
    expect((await busy.deleteSession({ sessionId: third })).worktree).toMatchObject({
      removed: false,
      reason: expect.stringContaining('1 commit main does not'),
    });
    expect(await main.mergeWorktree({ name: 'work' })).toMatchObject({ status: 'merged' });
    const last = (await busy.createSession({})).session.id;
    expect((await busy.deleteSession({ sessionId: last })).worktree).toMatchObject({ removed: true });
    expect(existsSync(work.path)).toBe(false);
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(branches()).toBe('');
  });

  it('Discard is refused, naming the session, while a session is running in the worktree; once it has ended it goes', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const main = h.core.handlers;
    const busy = (await main.createWorktree({ name: 'busy' })).worktree;
    const there = await createHarness({ workspace: busy.path, home: h.home });
    others.push(there);
    await there.core.handlers.renameSession({ sessionId: there.session.id, title: 'Fixing the login' });
    // A turn that takes its time, in the worktree's own core (another window, or deft run, in real use).
    there.server.enqueue({ chunks: [{ text: 'working' }, { text: ' on it' }, { finish: 'stop' }], delayMs: 1_500 });
    await there.core.handlers.sendPrompt({ sessionId: there.session.id, text: 'do the work' });
    await expect(main.discardWorktree({ name: 'busy', deleteBranch: true })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(
        new RegExp(`worktree "busy" was not discarded: a session is running in it — "Fixing the login" \\(${there.session.id}\\)`),
      ),
    });
    expect(existsSync(busy.path)).toBe(true);
    await there.core.turnDone(there.session.id);
    expect(await main.discardWorktree({ name: 'busy', deleteBranch: true })).toEqual({ removed: busy.path, branchDeleted: true });
    expect(existsSync(busy.path)).toBe(false);
  });

  it('another core’s list shows a worktree’s session running, waiting for you while an approval waits, then idle', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const main = h.core.handlers;
    const live = async () => (await main.listWorktrees({})).worktrees.map((w) => ({ live: w.live, sessions: w.sessions.map((s) => s.live) }));
    const path = (await main.createWorktree({ name: 'ask' })).worktree.path;
    // A window's host: a turn asks for approval and waits for an answer.
    const there = await createHarness({ workspace: path, home: h.home, host: webHost });
    others.push(there);
    const id = there.session.id;
    // The session exists in the worktree (its first turn makes it so): idle until a turn runs.
    there.server.enqueue({ chunks: [{ text: 'hi' }, { finish: 'stop' }] });
    await there.run('hello', id);
    expect(await live()).toEqual([{ live: 'idle', sessions: ['idle'] }]);
    // A turn running there (another window): running here.
    there.server.enqueue({ chunks: [{ text: 'working' }, { finish: 'stop' }], delayMs: 1_500 });
    await there.core.handlers.sendPrompt({ sessionId: id, text: 'do the work' });
    expect(await live()).toEqual([{ live: 'running', sessions: ['running'] }]);
    // The live-only read (the sidebar's poll, no git) says the same.
    expect(await main.worktreesLive({})).toMatchObject({ worktrees: [{ name: 'ask', live: 'running', sessions: [{ id, live: 'running' }] }] });
    await there.core.turnDone(id);
    expect(await live()).toEqual([{ live: 'idle', sessions: ['idle'] }]);
    // A turn asking for an approval: waiting for you until it is answered, then running on and done.
    await there.core.handlers.setPermissionMode({ sessionId: id, mode: 'ask' });
    there.server.enqueue(toolStep(callChunk('Write', { path: 'asked.txt', content: 'x' })), textReply('Asked.'));
    await there.core.handlers.sendPrompt({ sessionId: id, text: 'ask first' });
    const approval = await waitFor(
      () => there.sessionEvents('approval.requested').find((e) => e.sessionId === id) as Extract<SessionEvent, { type: 'approval.requested' }> | undefined,
    );
    expect(await live()).toEqual([{ live: 'waiting', sessions: ['waiting'] }]);
    await there.core.handlers.answerApproval({ sessionId: id, requestId: approval.requestId, answer: { decision: 'reject' } });
    await there.core.turnDone(id);
    expect(await live()).toEqual([{ live: 'idle', sessions: ['idle'] }]);
  });

  it('a core on a worktree says what the main checkout’s sessions do (its way back shows it); the main checkout’s own core does not', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo, host: webHost });
    const path = (await h.core.handlers.createWorktree({ name: 'bar' })).worktree.path;
    const there = await createHarness({ workspace: path, home: h.home, host: webHost });
    others.push(there);
    expect(await h.core.handlers.worktreesLive({})).not.toHaveProperty('main');
    h.server.enqueue({ chunks: [{ text: 'hi' }, { finish: 'stop' }] });
    await h.run('hello');
    expect((await there.core.handlers.worktreesLive({})).main).toBe('idle');
    h.server.enqueue({ chunks: [{ text: 'working' }, { finish: 'stop' }], delayMs: 1_500 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'work on' });
    expect((await there.core.handlers.worktreesLive({})).main).toBe('running');
    await h.core.turnDone(h.session.id);
    expect((await there.core.handlers.worktreesLive({})).main).toBe('idle');
  });

  it('drafts the merge message with the configured model (bounded diff), falls back when it fails; Create branch only keeps the branch', async () => {
    const repo = await repository();
    h = await createHarness({ workspace: repo });
    const main = h.core.handlers;
    const one = (await main.createWorktree({ name: 'one' })).worktree;
    await writeFile(join(one.path, 'app.txt'), 'one\nTWO\n');
    h.server.enqueue({ chunks: [{ text: 'Capitalise the second line' }, { finish: 'stop' }] });
    const before = h.server.requests.length;
    expect(await main.draftWorktreeMessage({ name: 'one' })).toEqual({ message: 'Capitalise the second line', drafted: true });
    const asked = h.server.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.body.tools ?? []).toEqual([]);
    expect(JSON.stringify(asked[0]!.body.messages)).toContain('+TWO');
    h.server.enqueue({ status: 400, body: JSON.stringify({ error: { message: 'bad request' } }) });
    expect(await main.draftWorktreeMessage({ name: 'one', squash: true })).toMatchObject({
      message: 'one: changes made in Deft worktree deft/one',
      drafted: false,
      note: expect.stringContaining('could not draft'),
    });
    expect(await main.keepWorktreeBranch({ name: 'one', message: 'Keep the capitals' })).toEqual({ branch: 'deft/one', committed: true, removed: one.path });
    expect(existsSync(one.path)).toBe(false);
    expect(plain(repo, ['log', '-1', '--format=%s', 'deft/one'])).toBe('Keep the capitals\n');
    expect(await readFile(join(repo, 'app.txt'), 'utf8')).toBe('one\ntwo\n');
    expect((await main.listWorktrees({})).worktrees).toEqual([]);
  });
});
