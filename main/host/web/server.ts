import { randomBytes } from 'node:crypto';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import type { DeftEvent } from '#protocol';
import { type HostView, worktreeSchemas } from '#protocol/schemas/worktrees';
import type { DeftCore } from '#runtime/core';
import { dispatchCommand } from '../dispatch';
import type { OpenedWorktree } from '../worktree-cores';
import type { WaitingBoard } from '../waiting-board';
import { isAllowedHost, isAllowedOrigin, tokensMatch } from './security';
import { send, serveStatic } from './static';

/** A message from a page: a command with a correlation id. */
const ClientMessage = z.object({ id: z.union([z.number(), z.string().max(100)]), name: z.string().max(100), input: z.unknown() }).strict();

export interface WebHostOptions {
  core: DeftCore;
  rendererDir: string;
  port?: number;
  token?: string;
  log?: (message: string) => void;
  /**
   * The core of a worktree a page asks for by name (`/ws?…&worktree=NAME`: WorktreeCores.open — never a path), kept
   * running beside the main checkout's. Given: each socket is first told which core it is served (`{view}`).
   */
  worktreeCore?: (name: string) => Promise<OpenedWorktree>;
  /** What waits for the user in each core: each page is told what waits in the cores it does not show (`requests.elsewhere`). */
  waiting?: WaitingBoard;
  /** Events queued for a page that does not read them, beyond which it is disconnected (it catches up on reconnect). */
  maxBufferedBytes?: number;
}

export interface WebHost {
  url: string;
  port: number;
  token: string;
  /**
   * Serve `core` from now on (a remote folder opened from the window): new connections get it at once; the pages
   * connected to the old one are disconnected shortly after (once the reply that asked for it is sent), and reconnect.
   */
  replaceCore(core: DeftCore): void;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 48 * 1024 * 1024;
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
/**
 * Events that come within this long of the first one waiting go to the page in one message. A model
 * streams up to a thousand deltas a second, and each message costs the page a task of its own; the
 * page applies events once a frame anyway.
 */
const EVENT_BATCH_MS = 16;

/** Collect events and hand them on together, at most EVENT_BATCH_MS after the first; `flush` hands on what waits now. */
function batchEvents(send: (events: DeftEvent[]) => void) {
  let waiting: DeftEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!waiting.length) return;
    const events = waiting;
    waiting = [];
    send(events);
  };
  return {
    add(event: DeftEvent) {
      waiting.push(event);
      timer ??= setTimeout(flush, EVENT_BATCH_MS);
    },
    flush,
    drop() {
      if (timer) clearTimeout(timer);
      timer = null;
      waiting = [];
    },
  };
}

/**
 * Serve the renderer and the protocol over a WebSocket on 127.0.0.1 only. The socket needs the token
 * (from the URL fragment the host prints), a loopback Host header and a same-origin Origin.
 */
export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const log = options.log ?? ((m: string) => console.error(m));
  let port = 0;
  const server = createServer((req, res) => {
    if (!isAllowedHost(req.headers.host, port)) return send(res, 403, 'Forbidden host');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed');
    serveStatic(options.rendererDir, req.url ?? '/', res).catch(() => send(res, 500, 'Internal error'));
  });
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    // Node drops its own error handler from an upgrading socket: without one, a client resetting the
    // connection while it is refused or upgraded would end the process.
    const onSocketError = () => socket.destroy();
    socket.on('error', onSocketError);
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return refuse(400, 'Bad Request');
    }
    if (url.pathname !== '/ws') return refuse(404, 'Not Found');
    if (!isAllowedHost(req.headers.host, port)) return refuse(403, 'Forbidden');
    if (!isAllowedOrigin(req.headers.origin, port)) return refuse(403, 'Forbidden');
    if (!tokensMatch(url.searchParams.get('token'), token)) return refuse(401, 'Unauthorized');
    const worktree = url.searchParams.get('worktree');
    wss.handleUpgrade(req, socket, head, (ws) => {
      socket.removeListener('error', onSocketError);
      connect(ws, worktree);
    });
  });

  let connections = 0;
  let current = options.core;
  /** The core a new socket is served: the main checkout's, or the worktree's it names (the main one, and why, when that fails). */
  async function chooseCore(main: DeftCore, worktree: string | null): Promise<{ core: DeftCore; view: HostView }> {
    if (worktree === null || !options.worktreeCore) {
      return { core: main, view: { worktree: null, ...(worktree !== null ? { refused: 'This host shows no worktrees.' } : {}) } };
    }
    try {
      const opened = await options.worktreeCore(worktree);
      // What the page is told is checked as any protocol message is (zod).
      return { core: opened.core, view: worktreeSchemas().HostView.parse({ worktree: { name: opened.name, branch: opened.branch } }) };
    } catch (error) {
      const reason = String((error as Error)?.message ?? error).slice(0, 500);
      return { core: main, view: { worktree: null, refused: `The worktree could not be opened here: ${reason}` } };
    }
  }

  function connect(ws: WebSocket, worktree: string | null): void {
    const chosen = chooseCore(current, worktree);
    // Each connection (a browser tab) shows the session it opened last, until it opens another or closes.
    const viewer = `web-${++connections}`;
    const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    const outgoing = batchEvents((events) => {
      if (ws.readyState !== ws.OPEN) return;
      // A page that stopped reading (a frozen tab) would otherwise hold every event in memory here.
      if (ws.bufferedAmount > maxBuffered) {
        log(
          `A page stopped reading events (${Math.round(ws.bufferedAmount / 1024 / 1024)} MiB queued); it was disconnected and will catch up when it reconnects.`,
        );
        ws.terminate();
        return;
      }
      ws.send(JSON.stringify(events.length === 1 ? { event: events[0] } : { events }));
    });
    let unsubscribe = () => {};
    let unwatch = () => {};
    let closed = false;
    // Which core this page is served comes first (when the host shows worktrees), then its events.
    void chosen.then(({ core, view }) => {
      if (ws.readyState !== ws.OPEN || closed) return;
      if (options.worktreeCore) ws.send(JSON.stringify({ view }));
      unsubscribe = core.onEvent((event) => {
        if (ws.readyState === ws.OPEN) outgoing.add(event);
      });
      // What waits in the other cores (the main checkout's, the other worktrees'): now, then each time it changes.
      const board = options.waiting;
      if (board) {
        let told = '';
        const tell = () => {
          if (ws.readyState !== ws.OPEN) return;
          const event = board.elsewhere(view.worktree);
          const text = JSON.stringify(event);
          if (text === told) return;
          told = text;
          outgoing.add(event);
        };
        tell();
        unwatch = board.subscribe(tell);
      }
    });
    const disconnect = () =>
      void chosen.then(({ core }) => {
        closed = true;
        unsubscribe();
        unwatch();
        outgoing.drop();
        core.show(viewer, null);
      });
    ws.on('close', disconnect);
    ws.on('error', disconnect);
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
      // A reply comes after the events sent before it (a command's own events among them); messages keep their order.
      void chosen.then(({ core }) => handleMessage(core, ws, viewer, text, outgoing.flush));
    });
  }

  async function handleMessage(core: DeftCore, ws: WebSocket, viewer: string, text: string | null, flushEvents: () => void): Promise<void> {
    let raw: unknown;
    try {
      raw = text === null ? undefined : JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const message = ClientMessage.safeParse(raw);
    if (!message.success) {
      const id = (raw as { id?: unknown } | undefined)?.id;
      ws.send(
        JSON.stringify({
          id: typeof id === 'number' || typeof id === 'string' ? id : null,
          reply: { ok: false, error: { code: 'invalid_request', message: 'Messages must be JSON objects {id, name, input}.' } },
        }),
      );
      return;
    }
    const reply = await dispatchCommand(core.handlers, message.data.name, message.data.input, log, (sessionId) => {
      // A message still in flight from a connection that has closed must not mark its session shown again.
      if (ws.readyState === ws.OPEN) core.show(viewer, sessionId);
    });
    flushEvents();
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: message.data.id, reply }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    token,
    url: `http://127.0.0.1:${port}/#token=${token}`,
    replaceCore: (core) => {
      current = core;
      const before = [...wss.clients];
      setTimeout(() => {
        for (const client of before) client.terminate();
      }, 500).unref();
    },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
