import { WebSocket } from 'ws';

/** A page's socket to a web host, with every message it got, in order, from the moment it opened. */
export interface HostSocket {
  ws: WebSocket;
  messages: Record<string, unknown>[];
}

/** Connect to the web host on `port` as its page would (the token, the host's own origin), `query` added to the URL. */
export function openHostSocket(port: number, token: string, query = ''): Promise<HostSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}${query}`, { headers: { origin: `http://127.0.0.1:${port}` } });
    const messages: Record<string, unknown>[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('error', reject);
  });
}
