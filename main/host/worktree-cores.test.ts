import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HostSocket, openHostSocket } from '#test-support/host-socket';
import { createHarness, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import type { DeftCore } from '#runtime/core';
import { startWebHost } from './web/server';
import { WorktreeCores } from './worktree-cores';
import { WaitingBoard } from './waiting-board';
import { webHost } from './hosts';

// The web host's cores beside the main checkout's (issue 30): one per worktree, by name, kept running.

function fakeCores(known: Record<string, string>) {
  const made: string[] = [];
  const closed: string[] = [];
  const resolve = vi.fn(async (name: string) => {
    await new Promise((r) => setTimeout(r, 5));
    const path = known[name];
    if (!path) throw new Error(`no worktree named "${name}"`);
    return { path, branch: `deft/${name}` };
  });
  const cores = new WorktreeCores({
    resolve,
    create: (path) => {
      made.push(path);
      return { close: async () => void closed.push(path) } as unknown as DeftCore;
    },
  });
  return { cores, made, closed, resolve };
}

describe('WorktreeCores', () => {
  it('makes one core per worktree, by name, and gives the same one again (two pages asking at once too)', async () => {
    const { cores, made } = fakeCores({ side: '/home/u/.deft/worktrees/r-1/side' });
    const [a, b] = await Promise.all([cores.open('side'), cores.open('side')]);
    expect(a.core).toBe(b.core);
    expect(a).toMatchObject({ name: 'side', branch: 'deft/side' });
    expect((await cores.open('side')).core).toBe(a.core);
    expect(made).toEqual(['/home/u/.deft/worktrees/r-1/side']);
  });

  it('refuses a name it does not know, and makes no core', async () => {
    const { cores, made } = fakeCores({});
    await expect(cores.open('gone')).rejects.toThrow('no worktree named "gone"');
    expect(made).toEqual([]);
  });

  it('never takes a path (or anything but a worktree name): refused before the records are read', async () => {
    const { cores, made, resolve } = fakeCores({ side: '/w/side' });
    for (const bad of ['/etc', '../side', 'a/b', '..', '.hidden', 'x.lock', '', 'a'.repeat(65), 42, null, { name: 'side' }]) {
      await expect(cores.open(bad)).rejects.toThrow('not a worktree name');
    }
    expect(resolve).not.toHaveBeenCalled();
    expect(made).toEqual([]);
  });

  it('closes every core it made', async () => {
    const { cores, closed } = fakeCores({ a: '/w/a', b: '/w/b' });
    await cores.open('a');
    await cores.open('b');
    expect(cores.size).toBe(2);
    await cores.closeAll();
    expect(closed.sort()).toEqual(['/w/a', '/w/b']);
    expect(cores.size).toBe(0);
  });
});

describe('the web host switching a page between cores', () => {
  const disposers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const dispose of disposers.splice(0).reverse()) await dispose();
  });

  async function twoCores() {
    // Cores of a host where someone can be asked (the web host's): a question waits for an answer there.
    const main = await createHarness({ host: webHost });
    const side = await createHarness({ host: webHost });
    disposers.push(main.dispose, side.dispose);
    const renderer = await tempDir('deft-renderer-');
    await mkdir(join(renderer, 'assets'));
    await writeFile(join(renderer, 'index.html'), '<!doctype html><title>Deft</title>');
    const cores = new WorktreeCores({
      resolve: async (name) => {
        if (name !== 'side') throw new Error(`no worktree named "${name}"`);
        return { path: side.workspace, branch: 'deft/side' };
      },
      create: () => side.core,
      made: (core, worktree) => waiting.watch(worktree, core),
    });
    const waiting = new WaitingBoard();
    waiting.watch(null, main.core);
    const host = await startWebHost({ core: main.core, rendererDir: renderer, token: 't', log: () => {}, worktreeCore: (name) => cores.open(name), waiting });
    disposers.push(() => host.close());
    // Each socket: its messages, in order, from the moment it opens.
    const open = (query: string) => openHostSocket(host.port, 't', query);
    const reply = async (page: HostSocket, id: number, name: string, input: unknown) => {
      page.ws.send(JSON.stringify({ id, name, input }));
      await vi.waitFor(() => expect(page.messages.some((m) => m.id === id)).toBe(true));
      return page.messages.find((m) => m.id === id)!.reply as { ok: boolean; result?: unknown };
    };
    return { main, side, open, reply, waiting };
  }

  it('a turn running in the worktree goes on while the page looks at the main checkout, and back', async () => {
    const { main, side, open, reply } = await twoCores();
    const there = await open('&worktree=side');
    await vi.waitFor(() => expect(there.messages[0]).toEqual({ view: { worktree: { name: 'side', branch: 'deft/side' } } }));
    // The worktree's session answers slowly: the page leaves for the main checkout while it runs.
    side.server.enqueue({ ...textReply('Done in the worktree.'), delayMs: 150 });
    expect(await reply(there, 1, 'sendPrompt', { sessionId: side.session.id, text: 'work there' })).toMatchObject({ ok: true });
    there.ws.close();
    const here = await open('');
    await vi.waitFor(() => expect(here.messages[0]).toEqual({ view: { worktree: null } }));
    expect(await reply(here, 2, 'listSessions', {})).toMatchObject({ ok: true, result: { sessions: [{ id: main.session.id }] } });
    // A turn here meanwhile, then the worktree's ends by itself: nothing stopped it.
    await main.run('work here');
    await side.core.turnDone(side.session.id);
    const ended = side.sessionEvents('turn.ended').at(-1);
    expect(ended).toMatchObject({ stopReason: 'end_turn' });
    // Back in the worktree: its session has the answer.
    here.ws.close();
    const back = await open('&worktree=side');
    const opened = (await reply(back, 3, 'openSession', { sessionId: side.session.id })) as { ok: boolean; result: unknown };
    expect(JSON.stringify(opened.result)).toContain('Done in the worktree.');
    back.ws.close();
  });

  it('an unknown worktree, or a path, is refused: the page is told, and served the main checkout', async () => {
    const { main, open, reply } = await twoCores();
    for (const [query, reason] of [
      ['&worktree=gone', 'no worktree named "gone"'],
      [`&worktree=${encodeURIComponent('/tmp')}`, 'not a worktree name'],
      [`&worktree=${encodeURIComponent('../side')}`, 'not a worktree name'],
    ] as const) {
      const page = await open(query);
      await vi.waitFor(() => expect(page.messages[0]).toMatchObject({ view: { worktree: null, refused: expect.stringContaining(reason) } }));
      expect(await reply(page, 1, 'listSessions', {})).toMatchObject({ ok: true, result: { sessions: [{ id: main.session.id }] } });
      page.ws.close();
    }
  });

  it('a page is told what waits in the other cores (requests.elsewhere), now and as it changes; never its own', async () => {
    const { side, open, reply } = await twoCores();
    // The worktree's core is made by a first page; it then goes away.
    const first = await open('&worktree=side');
    await vi.waitFor(() => expect(first.messages[0]).toMatchObject({ view: { worktree: { name: 'side' } } }));
    await vi.waitFor(() => expect(first.messages).toContainEqual({ event: { type: 'requests.elsewhere', requests: [], total: 0 } }));
    first.ws.close();
    const here = await open('');
    await vi.waitFor(() => expect(here.messages).toContainEqual({ event: { type: 'requests.elsewhere', requests: [], total: 0 } }));
    // A question asked in the worktree's session (its turn is running there, no page shows it).
    side.server.enqueue(toolStep(callChunk('AskUserQuestion', { questions: [{ question: 'Which branch?', options: [{ label: 'main' }, { label: 'dev' }] }] })));
    expect(await reply(here, 1, 'listSessions', {})).toMatchObject({ ok: true });
    const sent = await side.core.handlers.sendPrompt({ sessionId: side.session.id, text: 'ask me' });
    const told = () =>
      here.messages
        .flatMap((m) => (m.events as Record<string, unknown>[] | undefined) ?? (m.event ? [m.event as Record<string, unknown>] : []))
        .filter((e) => e.type === 'requests.elsewhere');
    await vi.waitFor(() =>
      expect(told().at(-1)).toMatchObject({
        total: 1,
        requests: [{ worktree: { name: 'side', branch: 'deft/side' }, sessionId: side.session.id, kind: 'question', summary: 'Which branch?' }],
      }),
    );
    // Answered (dismissed) there: the page is told it no longer waits.
    const asked = side.sessionEvents('question.asked').at(-1) as { requestId: string };
    side.server.enqueue(textReply('Fine.'));
    await side.core.handlers.answerQuestion({ sessionId: side.session.id, requestId: asked.requestId, answers: [], dismissed: true });
    await side.core.turnDone(side.session.id);
    await vi.waitFor(() => expect(told().at(-1)).toMatchObject({ total: 0, requests: [] }));
    expect(sent.turnId).toBeTruthy();
    here.ws.close();
  });
});
