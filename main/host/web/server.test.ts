import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { Socket, connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { createHarness, tempDir } from '#test-support/harness';
import { type WebHost, startWebHost } from './server';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
let host: WebHost;

beforeEach(async () => {
  h = await createHarness();
  const renderer = await tempDir('deft-renderer-');
  await mkdir(join(renderer, 'assets'));
  await writeFile(join(renderer, 'index.html'), '<!doctype html><title>Deft</title>');
  await writeFile(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  host = await startWebHost({ core: h.core, rendererDir: renderer, token: 'secret-token', log: () => {} });
});
afterEach(async () => {
  await host.close();
  await h.dispose();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { host: `127.0.0.1:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(query: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws${query}`, { headers: { origin: `http://127.0.0.1:${host.port}`, ...headers } });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

function nextMessage(ws: WebSocket, match: (m: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>;
      if (match(message)) {
        ws.off('message', onMessage);
        resolve(message);
      }
    };
    ws.on('message', onMessage);
  });
}

describe('web host', () => {
  it('listens on loopback and prints a URL carrying the token in the fragment', () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=secret-token`);
  });

  it('serves the renderer with a strict CSP, and nothing outside it', async () => {
    const index = await get('/');
    expect(index.status).toBe(200);
    expect(String(index.headers['content-security-policy'])).toContain("script-src 'self'");
    expect((await get('/assets/app.js')).status).toBe(200);
    const traversal = await get('/..%2f..%2f..%2f..%2fetc%2fpasswd');
    expect(traversal.body).not.toContain('root:');
    expect(traversal.body).toContain('<title>Deft</title>');
    expect((await get('/..%2f..%2f..%2f..%2fetc%2fhostname.txt')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
  });

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    expect((await get('/', { host: 'evil.example:80' })).status).toBe(403);
  });

  it('refuses a socket without the token, with a wrong token, or from another origin', async () => {
    await expect(connect('')).rejects.toThrow('HTTP 401');
    await expect(connect('?token=wrong')).rejects.toThrow('HTTP 401');
    await expect(connect('?token=secret-token', { origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
  });

  it('answers commands, pushes events, and rejects malformed messages without closing', async () => {
    const ws = await connect('?token=secret-token');
    ws.send('not json');
    expect(await nextMessage(ws)).toMatchObject({ id: null, reply: { ok: false, error: { code: 'invalid_request' } } });
    ws.send(JSON.stringify({ id: 1, name: 'openSession', input: { sessionId: 5 } }));
    expect(await nextMessage(ws, (m) => m.id === 1)).toMatchObject({ reply: { ok: false, error: { code: 'invalid_request' } } });
    ws.send(JSON.stringify({ id: 2, name: 'listSessions', input: {} }));
    expect(await nextMessage(ws, (m) => m.id === 2)).toMatchObject({ reply: { ok: true, result: { sessions: [{ id: h.session.id }] } } });
    // Events come one to a message, or several together when they come close (as a stream's do).
    const eventsOf = (m: Record<string, unknown>) =>
      (m.events as Record<string, unknown>[] | undefined) ?? (m.event ? [m.event as Record<string, unknown>] : []);
    const ended = nextMessage(ws, (m) => eventsOf(m).some((e) => e.type === 'turn.ended')).then((m) => eventsOf(m).find((e) => e.type === 'turn.ended'));
    ws.send(JSON.stringify({ id: 3, name: 'sendPrompt', input: { sessionId: h.session.id, text: 'hello web' } }));
    expect(await ended).toMatchObject({ type: 'turn.ended', stopReason: 'end_turn', sessionId: h.session.id });
    ws.close();
  });

  it('sends events that come together in one message, and a reply only after the events before it', async () => {
    const ws = await connect('?token=secret-token');
    const emit = (h.core as unknown as { emit(event: unknown): void }).emit.bind(h.core);
    const received: Record<string, unknown>[] = [];
    ws.on('message', (data: Buffer) => received.push(JSON.parse(data.toString()) as Record<string, unknown>));
    for (let i = 0; i < 20; i++) emit({ type: 'settings.updated', settings: { n: i } });
    await vi.waitFor(() => expect(received.length).toBeGreaterThan(0));
    expect(received).toEqual([{ events: Array.from({ length: 20 }, (_, i) => ({ type: 'settings.updated', settings: { n: i } })) }]);

    // Events still waiting when a reply is ready go first.
    emit({ type: 'settings.updated', settings: { n: 'before the reply' } });
    const replied = nextMessage(ws, (m) => m.id === 7);
    ws.send(JSON.stringify({ id: 7, name: 'listSessions', input: {} }));
    await replied;
    const order = received.slice(1).map((m) => (m.id === 7 ? 'reply' : 'event'));
    expect(order).toEqual(['event', 'reply']);
    ws.close();
  });

  it('answers an upgrade whose URL cannot be parsed with 400, and keeps serving', async () => {
    const status = await new Promise<string>((resolve) => {
      const socket = connectTcp(host.port, '127.0.0.1', () => {
        socket.write(
          `GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        );
      });
      socket.on('data', (chunk) => {
        resolve(String(chunk).split('\r\n')[0] ?? '');
        socket.destroy();
      });
      socket.on('close', () => resolve('closed without a response'));
      socket.on('error', () => {});
    });
    expect(status).toBe('HTTP/1.1 400 Bad Request');
    expect((await get('/')).status).toBe(200);
  });

  it('survives a client that resets the connection while its upgrade is refused', async () => {
    const end = Object.getOwnPropertyDescriptor(Socket.prototype, 'end')!.value as (...a: unknown[]) => Socket;
    // A reset arriving as the refusal is written: the server-side socket errors (ECONNRESET).
    const spy = vi.spyOn(Socket.prototype, 'end').mockImplementation(function (this: Socket, ...args: unknown[]) {
      const result = end.apply(this, args);
      if ((this as Socket & { server?: unknown }).server) this.destroy(Object.assign(new Error('write ECONNRESET'), { code: 'ECONNRESET' }));
      return result;
    });
    try {
      await expect(connect('?token=wrong')).rejects.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      spy.mockRestore();
    }
    expect((await get('/')).status).toBe(200);
  });

  it('disconnects a page that stops reading events instead of queueing them without end', async () => {
    await host.close();
    const logged: string[] = [];
    host = await startWebHost({
      core: h.core,
      rendererDir: await tempDir('deft-renderer-'),
      token: 'secret-token',
      log: (m) => logged.push(m),
      maxBufferedBytes: 2 * 1024 * 1024,
    });
    const ws = await connect('?token=secret-token');
    const raw = (ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    const emit = (h.core as unknown as { emit(event: unknown): void }).emit.bind(h.core);
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 48 && !logged.length; i++) {
      emit({ type: 'settings.updated', settings: { padding: big } });
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(logged.join('\n')).toContain('stopped reading events');
    const closed = new Promise((resolve) => ws.once('close', resolve));
    raw.resume();
    await closed;
  });
});
