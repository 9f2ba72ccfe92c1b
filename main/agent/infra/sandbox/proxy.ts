import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { type IncomingMessage, type RequestOptions, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { type Socket, connect, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NetworkPolicy, NetworkTarget } from '#contract/sandbox';
import { blockedAddressReason } from '../net/address-policy';
import type { AddressCheck } from './address-check';
import { normalHost } from './domains';

/** A connection the proxy refused, with the policy's reason (and, when the address was refused, how to allow it). */
export interface RefusedConnection extends NetworkTarget {
  reason: string;
  hint?: string;
}

/** Resolves a name to its addresses (the system's resolver; tests give their own). */
export type Resolver = (host: string) => Promise<string[]>;
// node:dns/promises is loaded with the first lookup: a run whose commands reach no network never needs it.
const systemResolver: Resolver = async (host) => (await (await import('node:dns/promises')).lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Opens the connection to an address the proxy checked (this machine's network; a remote sandbox's: that machine's). */
export type Dialer = (address: string, port: number) => Promise<Duplex>;
const directDialer: Dialer = (address, port) =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });

export interface ProxyOptions {
  resolve?: Resolver;
  dial?: Dialer;
}

/** One sandboxed process's pass to the proxy: its token, its policy and what it was refused. */
export interface ProxyPass {
  readonly token: string;
  readonly refused: RefusedConnection[];
  /** Stop asking for this process (it ended): pending decisions give up, later connections are refused. */
  release(): void;
}

interface Entry {
  policy: NetworkPolicy;
  addresses: AddressCheck;
  refused: RefusedConnection[];
  controller: AbortController;
  /** Decisions per host:port for this process, so a client retrying asks once. */
  decided: Map<string, Promise<{ allowed: boolean; reason?: string }>>;
}

const PROXY_USER = 'deft';

/**
 * Deft's network proxy for sandboxed processes (HTTP CONNECT, and plain HTTP with absolute URLs). Every
 * request carries a per-process token (`http://deft:<token>@…` in HTTP_PROXY); the process's policy
 * decides on each new host:port, asking the user when it must. Listens on a unix socket (Linux: carried
 * into the sandbox's network by socat) or on 127.0.0.1 (macOS: the one port Seatbelt lets out).
 */
export class NetworkProxy {
  private readonly entries = new Map<string, Entry>();
  private readonly server: Server;
  private readonly sockets = new Set<Socket | Duplex>();

  private listening = false;

  private constructor(
    readonly address: { path: string } | { port: number } | null,
    private readonly resolve: Resolver,
    private readonly dial: Dialer,
  ) {
    this.server = createServer();
    this.server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.onRequest(req, res));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** A proxy that listens nowhere: its connections are handed to it (`serve`), as a remote sandbox's relay does. */
  static unbound(options: ProxyOptions = {}): NetworkProxy {
    return new NetworkProxy(null, options.resolve ?? systemResolver, options.dial ?? directDialer);
  }

  /** Serve one connection that came another way (a stream forwarded over SSH). */
  serve(stream: Duplex): void {
    stream.on('error', () => stream.destroy());
    this.server.emit('connection', stream);
  }

  static async listen(at: { path: string } | { host: '127.0.0.1' }, options: ProxyOptions = {}): Promise<NetworkProxy> {
    const proxy = new NetworkProxy('path' in at ? { path: at.path } : { port: 0 }, options.resolve ?? systemResolver, options.dial ?? directDialer);
    proxy.listening = true;
    if ('path' in at) {
      rmSync(at.path, { force: true });
      proxy.server.listen(at.path);
    } else {
      proxy.server.listen(0, at.host);
    }
    await once(proxy.server, 'listening');
    const address = proxy.server.address();
    if (address && typeof address === 'object') (proxy as { address: { port: number } }).address = { port: address.port };
    proxy.server.unref();
    return proxy;
  }

  /**
   * A pass for one process: connections with its token follow `policy` (on the name), then `addresses` (on
   * where the name resolves). By default only public addresses, or an address the process named itself.
   */
  register(policy: NetworkPolicy, addresses: AddressCheck = publicOnly): ProxyPass {
    const token = randomBytes(18).toString('base64url');
    const entry: Entry = { policy, addresses, refused: [], controller: new AbortController(), decided: new Map() };
    this.entries.set(token, entry);
    return {
      token,
      refused: entry.refused,
      release: () => {
        entry.controller.abort();
        this.entries.delete(token);
      },
    };
  }

  /** The proxy URL a process uses, at the port it reaches the proxy on. */
  static url(token: string, port: number): string {
    return `http://${PROXY_USER}:${token}@127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    for (const entry of this.entries.values()) entry.controller.abort();
    this.entries.clear();
    for (const socket of this.sockets) socket.destroy();
    if (!this.listening) return;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (this.address && 'path' in this.address) rmSync(this.address.path, { force: true });
  }

  private entryFor(req: IncomingMessage): Entry | undefined {
    const header = req.headers['proxy-authorization'];
    const match = typeof header === 'string' ? /^Basic\s+(\S+)$/i.exec(header) : null;
    if (!match) return undefined;
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0 || decoded.slice(0, colon) !== PROXY_USER) return undefined;
    return this.entries.get(decoded.slice(colon + 1));
  }

  private async decide(entry: Entry, target: NetworkTarget): Promise<{ allowed: boolean; reason?: string }> {
    const key = `${target.host}:${target.port}`;
    let decision = entry.decided.get(key);
    if (!decision) {
      decision = entry
        .policy(target, entry.controller.signal)
        .then((verdict) => (verdict.allowed ? { allowed: true } : { allowed: false, reason: verdict.reason }))
        .catch((error: unknown) => ({ allowed: false, reason: `the connection could not be decided (${(error as Error).message})` }));
      entry.decided.set(key, decision);
    }
    const result = await decision;
    if (!result.allowed) this.noteRefused(entry, { ...target, reason: result.reason ?? 'refused' });
    return result;
  }

  private noteRefused(entry: Entry, refused: RefusedConnection): void {
    if (!entry.refused.some((r) => r.host === refused.host && r.port === refused.port)) entry.refused.push(refused);
  }

  /**
   * The address to connect to for an allowed target: resolved once, here, and checked — the connection goes to
   * the address checked, never to a second lookup an attacker's DNS could answer differently.
   */
  private async route(entry: Entry, target: NetworkTarget): Promise<{ address: string } | { refused: string } | { unreachable: string }> {
    let addresses: string[];
    if (isIP(target.host)) addresses = [target.host];
    else {
      try {
        addresses = await this.resolve(target.host);
      } catch (error) {
        return { unreachable: `${target.host} could not be resolved (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
      }
    }
    let first: { reason: string; hint: string } | null = null;
    for (const address of addresses) {
      const refusal = entry.addresses(target, address);
      if (!refusal) return { address };
      first ??= refusal;
    }
    if (!first) return { unreachable: `${target.host} has no address` };
    this.noteRefused(entry, { ...target, reason: first.reason, hint: first.hint });
    return { refused: first.reason };
  }

  private async onConnect(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    const entry = this.entryFor(req);
    if (!entry) return void refuseRaw(client, 407, 'Deft sandbox proxy: missing or unknown credentials.');
    const target = parseAuthority(req.url ?? '');
    if (!target) return void refuseRaw(client, 400, `Deft sandbox proxy: "${req.url}" is not host:port.`);
    const verdict = await this.decide(entry, target);
    if (!verdict.allowed) return void refuseRaw(client, 403, blockedText(target, verdict.reason));
    const route = await this.route(entry, target);
    if ('refused' in route) return void refuseRaw(client, 403, blockedText(target, route.refused));
    if ('unreachable' in route) return void refuseRaw(client, 502, `Deft sandbox proxy: cannot reach ${target.host}:${target.port} (${route.unreachable}).`);
    let upstream: Duplex;
    try {
      upstream = await this.dial(route.address, target.port);
    } catch (error) {
      if (client.writable) refuseRaw(client, 502, `Deft sandbox proxy: cannot reach ${target.host}:${target.port} (${(error as Error).message}).`);
      return;
    }
    if (client.destroyed) return void upstream.destroy();
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entry = this.entryFor(req);
    if (!entry) return void refuse(res, 407, 'Deft sandbox proxy: missing or unknown credentials.');
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void refuse(res, 400, 'Deft sandbox proxy: requests must use an absolute http:// URL.');
    }
    if (url.protocol !== 'http:') return void refuse(res, 400, 'Deft sandbox proxy: only http:// requests are proxied directly; https goes through CONNECT.');
    const target = { host: normalHost(url.hostname), port: Number(url.port || 80) };
    const verdict = await this.decide(entry, target);
    if (!verdict.allowed) return void refuse(res, 403, blockedText(target, verdict.reason));
    const route = await this.route(entry, target);
    if ('refused' in route) return void refuse(res, 403, blockedText(target, route.refused));
    if ('unreachable' in route) return void refuse(res, 502, `Deft sandbox proxy: cannot reach ${target.host}:${target.port} (${route.unreachable}).`);
    // The Host the server sees is the one that was decided on, not whatever the client wrote.
    const headers: IncomingMessage['headers'] = { ...req.headers, host: url.host };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    let socket: Duplex;
    try {
      socket = await this.dial(route.address, target.port);
    } catch (error) {
      return void refuse(res, 502, `Deft sandbox proxy: cannot reach ${target.host}:${target.port} (${(error as Error).message}).`);
    }
    const createConnection = (() => socket) as unknown as RequestOptions['createConnection'];
    const upstream = httpRequest({ method: req.method, path: `${url.pathname}${url.search}`, headers, createConnection }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (error) => {
      if (!res.headersSent) refuse(res, 502, `Deft sandbox proxy: cannot reach ${target.host}:${target.port} (${error.message}).`);
      else res.destroy();
    });
    // The client gone (or done): the upstream connection ends with it (it is never pooled for another client).
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }
}

/** Without settings to say otherwise: public addresses, or the very address the process asked for. */
const publicOnly: AddressCheck = (target, address) => {
  if (isIP(normalHost(target.host)) || !blockedAddressReason(address)) return null;
  const reason = `${target.host} resolves to ${address}, ${blockedAddressReason(address)}`;
  return { reason, hint: reason };
};

function blockedText(target: NetworkTarget, reason: string | undefined): string {
  return `Deft's sandbox blocked the connection to ${target.host}:${target.port}: ${reason ?? 'not allowed'}`;
}

function parseAuthority(authority: string): NetworkTarget | null {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority.trim());
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  return { host: normalHost(match[1]!), port };
}

function refuse(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'x-deft-sandbox': 'blocked',
    ...(status === 407 ? { 'proxy-authenticate': 'Basic realm="deft"' } : {}),
  });
  res.end(`${text}\n`);
}

function refuseRaw(socket: Duplex, status: number, text: string): void {
  const body = `${text}\n`;
  const reason = { 400: 'Bad Request', 403: 'Forbidden', 407: 'Proxy Authentication Required', 502: 'Bad Gateway' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nX-Deft-Sandbox: blocked\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The variables that send a sandboxed process's connections to Deft's proxy (its own loopback stays direct). */
export function proxyEnvironment(url: string): Record<string, string> {
  const local = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: local,
    no_proxy: local,
    NODE_USE_ENV_PROXY: '1',
  };
}
