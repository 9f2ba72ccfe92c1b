import { describe, expect, it, vi } from 'vitest';
import type { DeftEvent } from '#protocol';
import { type ViewedCore, windowViews } from './core-views';

// The desktop app's window: one window, its folder's core and one per worktree, switched by name (issue 30). No
// Electron here: main/index.ts wires these views to a BrowserWindow and its IPC.

/** A core that emits what it is told to, records which session each viewer shows, and whether it was closed. */
function fakeCore(path: string) {
  const listeners = new Set<(event: DeftEvent) => void>();
  const shown = new Map<string, string | null>();
  let seq = 0;
  const core: ViewedCore & { path: string; closed: boolean; shown: typeof shown; emit(event: Record<string, unknown>): void; listening(): number } = {
    path,
    closed: false,
    shown,
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    show(viewer, sessionId) {
      shown.set(viewer, sessionId);
    },
    async close() {
      core.closed = true;
    },
    emit(event) {
      const stamped = { sessionId: 's1', seq: ++seq, at: seq, ...event } as unknown as DeftEvent;
      for (const l of [...listeners]) l(stamped);
    },
    listening: () => listeners.size,
  };
  return core;
}

function aWindow(known: Record<string, string> = { para: '/home/u/.deft/worktrees/r-1/para', other: '/home/u/.deft/worktrees/r-1/other' }) {
  const main = fakeCore('/repo');
  const made: Array<ReturnType<typeof fakeCore>> = [];
  const sent: Array<{ view: unknown } | { event: DeftEvent }> = [];
  const resolve = vi.fn(async (name: string) => {
    const path = known[name];
    if (!path) throw new Error(`no worktree named "${name}"`);
    return { path, branch: `deft/${name}` };
  });
  const window = windowViews({
    main,
    viewer: 'window-1',
    resolve,
    create: (path) => {
      const core = fakeCore(path);
      made.push(core);
      return core;
    },
    send: (message) => sent.push(message),
  });
  const events = () => sent.flatMap((m) => ('event' in m ? [m.event] : []));
  const views = () => sent.flatMap((m) => ('view' in m ? [m.view] : []));
  return { main, made, sent, resolve, window, events, views };
}

const approval = (requestId: string) => ({
  type: 'approval.requested',
  turnId: 't',
  requestId,
  kind: 'tool',
  toolName: 'Write',
  description: 'Create para.txt',
  display: { kind: 'none' },
  reason: 'ask',
});

describe('one window, several cores (the desktop app)', () => {
  it('starts on its folder, switches to a worktree by name and back; the core left keeps running and is not told to stop', async () => {
    const { main, made, window, views, events } = aWindow();
    expect(window.views.core).toBe(main);
    expect(views()).toEqual([{ worktree: null }]);
    expect(await window.views.switchTo('para')).toEqual({ worktree: { name: 'para', branch: 'deft/para' } });
    const para = made[0]!;
    expect(window.views.core).toBe(para);
    // Only the core shown reaches the window; the main checkout's events no longer do.
    main.emit({ type: 'turn.started', turnId: 'm', text: 'here', attachments: [], origin: 'user' });
    para.emit({ type: 'turn.started', turnId: 'w', text: 'there', attachments: [], origin: 'user' });
    expect(events().filter((e) => e.type === 'turn.started')).toMatchObject([{ turnId: 'w' }]);
    // The core left: no longer shows a session for this window (it may let an idle one go), and is not closed.
    expect(main.shown.get('window-1')).toBeNull();
    expect(main.closed).toBe(false);
    expect(await window.views.switchTo(null)).toEqual({ worktree: null });
    expect(window.views.core).toBe(main);
    expect(para.closed).toBe(false);
    expect(para.listening()).toBe(1); // the board only: the window follows the main checkout again
    // The same worktree again: the same core, made once.
    await window.views.switchTo('para');
    expect(made).toHaveLength(1);
    expect(window.views.core).toBe(para);
  });

  it('tells the window what waits in the cores it does not show, and not what it shows', async () => {
    const { main, made, window, events } = aWindow();
    await window.views.switchTo('para');
    const para = made[0]!;
    await window.views.switchTo(null);
    para.emit({ type: 'session.updated', session: { title: 'Write para.txt' } });
    para.emit(approval('r1'));
    const told = () => events().filter((e) => e.type === 'requests.elsewhere');
    expect(told().at(-1)).toMatchObject({ total: 1, requests: [{ worktree: { name: 'para' }, title: 'Write para.txt', kind: 'approval' }] });
    // In the worktree, its own request is its card: nothing waits elsewhere.
    await window.views.switchTo('para');
    expect(told().at(-1)).toMatchObject({ total: 0 });
    main.emit({ type: 'question.asked', sessionId: 'm1', turnId: 't', requestId: 'q1', callId: 'c', questions: [{ question: 'Which?' }] });
    expect(told().at(-1)).toMatchObject({ total: 1, requests: [{ worktree: null, kind: 'question' }] });
  });

  it('refuses a path or anything that is not a name before reading anything, and an unknown worktree: the window stays on its folder, told why', async () => {
    const { main, made, resolve, window, views } = aWindow();
    for (const bad of ['/etc', '../para', 'a/b', '..', 'x.lock', '', 42, { name: 'para' }]) {
      expect(await window.views.switchTo(bad)).toMatchObject({ worktree: null, refused: expect.stringContaining('not a worktree name') });
    }
    expect(resolve).not.toHaveBeenCalled();
    expect(await window.views.switchTo('gone')).toMatchObject({ worktree: null, refused: expect.stringContaining('no worktree named "gone"') });
    expect(window.views.core).toBe(main);
    expect(made).toEqual([]);
    expect(views().at(-1)).toMatchObject({ worktree: null, refused: expect.any(String) });
  });

  it('two switches at once: the newer one wins', async () => {
    const { made, window } = aWindow();
    const first = window.views.switchTo('para');
    const second = window.views.switchTo('other');
    await Promise.all([first, second]);
    expect(window.views.current).toEqual({ worktree: { name: 'other', branch: 'deft/other' } });
    expect(window.views.core).toBe(made.find((c) => c.path.endsWith('/other')));
  });

  it('closing the window closes every core it had, and sends nothing more', async () => {
    const { main, made, window, sent } = aWindow();
    await window.views.switchTo('para');
    await window.views.switchTo('other');
    await window.close();
    expect([main.closed, ...made.map((c) => c.closed)]).toEqual([true, true, true]);
    const before = sent.length;
    made[1]!.emit(approval('late'));
    expect(sent.length).toBe(before);
  });

  it('a window on a remote folder shows no worktrees', async () => {
    const main = fakeCore('/remote');
    const window = windowViews({ main, viewer: 'w', create: () => fakeCore('x'), send: () => {} });
    expect(await window.views.switchTo('para')).toMatchObject({ worktree: null, refused: 'This window shows no worktrees.' });
  });
});
