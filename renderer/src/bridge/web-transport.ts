import type { BridgeTransport, CommandName, CommandReply, DeftEvent } from '#protocol';

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

/** The protocol over a WebSocket to the web host, reconnecting with backoff. */
export function createWebTransport(): BridgeTransport {
  const token = readToken();
  const listeners = new Set<(event: DeftEvent) => void>();
  const connectionListeners = new Set<(state: 'open' | 'closed') => void>();
  const pending = new Map<number, Pending>();
  const outbox: string[] = [];
  let socket: WebSocket | null = null;
  let nextId = 1;
  let delay = 250;

  const setState = (state: 'open' | 'closed') => connectionListeners.forEach((l) => l(state));

  function connect(): void {
    const protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${protocol}//${location.host}/ws?token=${encodeURIComponent(token)}`);
    socket = ws;
    ws.onopen = () => {
      delay = 250;
      setState('open');
      while (outbox.length) ws.send(outbox.shift()!);
    };
    ws.onmessage = (message) => {
      // One event, or several that came close together (the host batches a fast stream).
      let data: { id?: number; reply?: CommandReply; event?: DeftEvent; events?: DeftEvent[] };
      try {
        data = JSON.parse(String(message.data)) as typeof data;
      } catch {
        return;
      }
      if (data.event) listeners.forEach((l) => l(data.event!));
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
      setTimeout(connect, delay);
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
