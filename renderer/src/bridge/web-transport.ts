import type { BridgeTransport, CommandName, CommandReply, DeftEvent, HostView } from '#protocol';

type Pending = { resolve: (reply: CommandReply) => void };

/**
 * The token comes in the URL fragment the web host prints; it is kept for reloads of this tab only
 * (sessionStorage) and taken out of the address bar at once, so it stays out of the history, bookmarks
 * and screen shares.
 */
function readToken(): string {
  const params = new URLSearchParams(location.hash.slice(1));
  const fromHash = params.get('token');
  if (fromHash) {
    sessionStorage.setItem('deft-token', fromHash);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(history.state, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
    return fromHash;
  }
  return sessionStorage.getItem('deft-token') ?? '';
}

/** The worktree this tab shows (by name; its core runs beside the main checkout's in the host), kept for its reloads. */
const VIEW_KEY = 'deft-worktree';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const isName = (name: unknown): name is string =>
  typeof name === 'string' && NAME.test(name) && !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.');
let view: HostView | null = null;
/** A switch asked for and not yet answered by the new socket's `{view}`. */
let switching = false;
const viewListeners = new Set<(view: HostView, switched: boolean) => void>();
/** Set by the transport: reconnect at once on the core the tab now names. */
let reconnectNow: (() => void) | null = null;

/** The address this tab shows for a view: the worktree's name in the fragment (`#worktree=NAME`), nothing for the main checkout. */
function addressFor(name: string | null): string {
  return `${location.pathname}${location.search}${name ? `#worktree=${encodeURIComponent(name)}` : ''}`;
}

/** The worktree the address names (a back or forward, a reload), checked as a name; undefined when it names none. */
function worktreeInAddress(): string | null | undefined {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.has('worktree')) return undefined;
  const name = params.get('worktree');
  return isName(name) ? name : null;
}

/** Which core the host serves this tab (its first message on each socket); null until it said. */
export const webView = {
  current: (): HostView | null => view,
  /** `switched`: this view answers a switch (the stores start again from the new core), not a reconnect. */
  subscribe(callback: (view: HostView, switched: boolean) => void): () => void {
    viewListeners.add(callback);
    return () => viewListeners.delete(callback);
  },
  /**
   * Show worktree `name` in this tab (null: the main checkout), in place: the socket reconnects naming it and the
   * page refills from that core — no reload; the cores left keep running. The address follows (a history entry, so
   * Back returns), unless `fromHistory` (the address already moved).
   */
  switchTo(name: string | null, fromHistory = false): void {
    if (name !== null && !isName(name)) return;
    if (name) sessionStorage.setItem(VIEW_KEY, name);
    else sessionStorage.removeItem(VIEW_KEY);
    if (!fromHistory && (view?.worktree?.name ?? null) !== name) history.pushState({ deftWorktree: name }, '', addressFor(name));
    switching = true;
    reconnectNow?.();
  },
};

/** The host's `{view}` (zod-checked there, HostView), read by its shape here: the renderer carries no zod. */
export function readView(raw: unknown): HostView | null {
  if (!raw || typeof raw !== 'object') return null;
  const { worktree, refused } = raw as { worktree?: unknown; refused?: unknown };
  if (refused !== undefined && typeof refused !== 'string') return null;
  const extra = refused === undefined ? {} : { refused: refused.slice(0, 2_000) };
  if (worktree === null) return { worktree: null, ...extra };
  const { name, branch } = (worktree ?? {}) as { name?: unknown; branch?: unknown };
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name) || typeof branch !== 'string') return null;
  return { worktree: { name, branch: branch.slice(0, 300) }, ...extra };
}

function hearView(raw: unknown): void {
  const heard = readView(raw);
  if (!heard) return;
  const switched = switching || (view !== null && (view.worktree?.name ?? null) !== (heard.worktree?.name ?? null));
  switching = false;
  view = heard;
  // Refused (gone since) or the main checkout: the next connection asks for no worktree, and the address says so.
  if (!heard.worktree) {
    sessionStorage.removeItem(VIEW_KEY);
    if (worktreeInAddress() !== undefined) history.replaceState(history.state, '', addressFor(null));
  } else if (worktreeInAddress() !== heard.worktree.name) history.replaceState(history.state, '', addressFor(heard.worktree.name));
  viewListeners.forEach((l) => l(heard, switched));
}

/** The protocol over a WebSocket to the web host, reconnecting with backoff. */
export function createWebTransport(): BridgeTransport {
  const token = readToken();
  // The address names the worktree (a reload, a bookmark of this tab): it wins over what the tab last kept.
  const named = worktreeInAddress();
  if (named) sessionStorage.setItem(VIEW_KEY, named);
  else if (named === null) sessionStorage.removeItem(VIEW_KEY);
  // Back and Forward move between the checkouts this tab showed, in place.
  window.addEventListener('popstate', () => {
    const target = worktreeInAddress() ?? null;
    if ((view?.worktree?.name ?? null) !== target) webView.switchTo(target, true);
  });
  const listeners = new Set<(event: DeftEvent) => void>();
  const connectionListeners = new Set<(state: 'open' | 'closed') => void>();
  const pending = new Map<number, Pending>();
  const outbox: string[] = [];
  let socket: WebSocket | null = null;
  let nextId = 1;
  let delay = 250;

  const setState = (state: 'open' | 'closed') => connectionListeners.forEach((l) => l(state));

  /** The socket now, closed on purpose: its replies and events are left behind (they belong to the core left). */
  function leave(): void {
    const old = socket;
    socket = null;
    if (old) {
      old.onclose = null;
      old.onmessage = null;
      old.close();
    }
    outbox.length = 0;
    for (const [id, p] of pending) {
      p.resolve({ ok: false, error: { code: 'internal', message: 'This window switched to another checkout before the answer came.' } });
      pending.delete(id);
    }
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  reconnectNow = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    leave();
    delay = 250;
    connect();
  };

  function connect(): void {
    timer = null;
    const protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // A worktree by name only: the host finds its folder in Deft's records.
    const worktree = sessionStorage.getItem(VIEW_KEY);
    const ws = new WebSocket(
      `${protocol}//${location.host}/ws?token=${encodeURIComponent(token)}${worktree ? `&worktree=${encodeURIComponent(worktree)}` : ''}`,
    );
    socket = ws;
    ws.onopen = () => {
      delay = 250;
      setState('open');
      while (outbox.length) ws.send(outbox.shift()!);
    };
    ws.onmessage = (message) => {
      if (socket !== ws) return;
      // One event, or several that came close together (the host batches a fast stream).
      let data: { id?: number; reply?: CommandReply; event?: DeftEvent; events?: DeftEvent[]; view?: unknown };
      try {
        data = JSON.parse(String(message.data)) as typeof data;
      } catch {
        return;
      }
      if (data.view !== undefined) hearView(data.view);
      else if (data.event) listeners.forEach((l) => l(data.event!));
      else if (Array.isArray(data.events)) for (const event of data.events) listeners.forEach((l) => l(event));
      else if (typeof data.id === 'number' && data.reply) {
        pending.get(data.id)?.resolve(data.reply);
        pending.delete(data.id);
      }
    };
    ws.onclose = () => {
      socket = null;
      for (const [id, p] of pending) {
        p.resolve({ ok: false, error: { code: 'internal', message: 'The connection to Deft was lost. Reconnecting…' } });
        pending.delete(id);
      }
      setState('closed');
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 5_000);
    };
  }
  connect();

  return {
    invoke(name: CommandName, input: unknown) {
      const id = nextId++;
      const text = JSON.stringify({ id, name, input });
      return new Promise<CommandReply>((resolve) => {
        pending.set(id, { resolve });
        if (socket?.readyState === WebSocket.OPEN) socket.send(text);
        else outbox.push(text);
      });
    },
    subscribe(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
    onConnection(callback) {
      connectionListeners.add(callback);
      return () => connectionListeners.delete(callback);
    },
  };
}
