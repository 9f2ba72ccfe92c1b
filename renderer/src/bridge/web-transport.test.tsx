import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The web host's page switching between cores in place (issue 30): the socket reconnects naming the other core; no
// reload; the address and history follow; what the core left still sends is not heard.

class FakeSocket {
  static OPEN = 1;
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: string[] = [];
  closed = false;
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(text: string) {
    this.sent.push(text);
  }
  close() {
    this.closed = true;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  hear(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
}

beforeEach(() => {
  FakeSocket.all = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  sessionStorage.clear();
  history.replaceState(null, '', '/#token=secret');
  vi.resetModules();
});
afterEach(() => vi.unstubAllGlobals());

async function load() {
  const module = await import('./web-transport');
  const transport = module.createWebTransport();
  const events: unknown[] = [];
  transport.subscribe((e) => events.push(e));
  const views: Array<[unknown, boolean]> = [];
  module.webView.subscribe((view, switched) => views.push([view, switched]));
  return { ...module, transport, events, views };
}

describe('the web page switching cores in place', () => {
  it('reconnects naming the worktree, tells the page it switched, and keeps the token out of the address', async () => {
    const { webView, transport, events, views } = await load();
    const first = FakeSocket.all[0]!;
    expect(first.url).toContain('token=secret');
    expect(first.url).not.toContain('worktree=');
    expect(location.hash).toBe('');
    first.open();
    first.hear({ view: { worktree: null } });
    expect(views).toEqual([[{ worktree: null }, false]]);
    // A command in flight when the switch comes is answered at once (its core was left).
    const pending = transport.invoke('listSessions', {});
    first.open();
    webView.switchTo('para');
    expect(first.closed).toBe(true);
    expect(await pending).toMatchObject({ ok: false, error: { message: expect.stringContaining('switched to another checkout') } });
    const second = FakeSocket.all[1]!;
    expect(second.url).toContain('&worktree=para');
    expect(location.hash).toBe('#worktree=para');
    expect(history.state).toEqual({ deftWorktree: 'para' });
    // The old socket's late events are not heard; the new one's view says it switched.
    first.hear({ event: { type: 'session.deleted', sessionId: 'old' } });
    second.open();
    second.hear({ view: { worktree: { name: 'para', branch: 'deft/para' } } });
    second.hear({ event: { type: 'session.deleted', sessionId: 'new' } });
    expect(events).toEqual([{ type: 'session.deleted', sessionId: 'new' }]);
    expect(views.at(-1)).toEqual([{ worktree: { name: 'para', branch: 'deft/para' } }, true]);
    expect(sessionStorage.getItem('deft-worktree')).toBe('para');
    // Back to the main checkout.
    webView.switchTo(null);
    expect(FakeSocket.all[2]!.url).not.toContain('worktree=');
    expect(location.hash).toBe('');
  });

  it('refuses a name that is not one (no socket, no history entry), and forgets a worktree the host refused', async () => {
    const { webView } = await load();
    for (const bad of ['../x', '/etc', 'a/b', 'x.lock', '']) webView.switchTo(bad);
    expect(FakeSocket.all).toHaveLength(1);
    expect(location.hash).toBe('');
    webView.switchTo('gone');
    const socket = FakeSocket.all[1]!;
    socket.open();
    socket.hear({ view: { worktree: null, refused: 'no worktree named "gone"' } });
    expect(sessionStorage.getItem('deft-worktree')).toBeNull();
    expect(location.hash).toBe('');
  });

  it('a reload on a worktree asks for it again: the address names it', async () => {
    history.replaceState(null, '', '/#worktree=para');
    sessionStorage.setItem('deft-token', 'secret');
    await load();
    expect(FakeSocket.all[0]!.url).toContain('&worktree=para');
  });
});
