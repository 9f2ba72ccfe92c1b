import { type IncomingMessage, request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';

/** The part of a fetch `Response` the providers read. */
export interface ProviderResponse {
  ok: boolean;
  status: number;
  headers: { get(name: string): string | null };
  body: ReadableStream<Uint8Array> | null;
  /** The body's chunks as they arrive, without a web stream (node-fetch's responses; fetch's have only `body`). */
  chunks?: () => AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}

export type ProviderFetch = (
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<ProviderResponse>;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * A model provider's requests on `node:http(s)` rather than the global `fetch`: the first `fetch` of a process loads
 * and compiles Node's bundled undici, about 90 ms of CPU — a fifth of a one-shot text turn (issue 36). What the
 * providers need is small: a request with a JSON body, the status and headers, the body as a web stream (SSE) or
 * text, cancellation by signal and redirects. Like Node's fetch, it uses no proxy from the environment; unlike it,
 * it asks for no compression (servers then send the stream as is).
 */
export const nodeFetch: ProviderFetch = (url, init) => send(new URL(url), init, 0);

function send(url: URL, init: Parameters<ProviderFetch>[1], hops: number): Promise<ProviderResponse> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      reject(new TypeError(`Only http and https addresses are supported, not ${url.protocol}`));
      return;
    }
    const body = init.body === undefined ? undefined : Buffer.from(init.body, 'utf8');
    const headers: Record<string, string> = { ...init.headers };
    if (body) headers['content-length'] = String(body.length);
    // https (TLS) is loaded with the first https request: a local model over http never needs it (issue 36).
    const request = (url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : httpRequest)(url, {
      method: init.method,
      headers,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    request.once('error', (error) => reject(init.signal?.aborted ? (init.signal.reason ?? error) : new TypeError('fetch failed', { cause: error })));
    request.once('response', (response) => {
      const location = response.headers.location;
      if (response.statusCode && REDIRECTS.has(response.statusCode) && location) {
        response.resume();
        if (hops >= MAX_REDIRECTS) {
          reject(new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) }));
          return;
        }
        // 303, and 301/302 after a POST, become a GET without a body (as browsers and fetch do).
        const keep = response.statusCode === 307 || response.statusCode === 308 || init.method === 'GET' || init.method === 'HEAD';
        const next = new URL(location, url);
        const { body: _body, ...rest } = init;
        const sameOrigin = next.origin === url.origin;
        const carried = sameOrigin ? init.headers : withoutCredentials(init.headers);
        send(
          next,
          keep ? { ...init, ...(carried ? { headers: carried } : {}) } : { ...rest, method: 'GET', ...(carried ? { headers: carried } : {}) },
          hops + 1,
        ).then(resolve, reject);
        return;
      }
      resolve(responseOf(response));
    });
    request.end(body);
  });
}

/** Headers without what authenticates to the first host: a redirect to another origin must not carry the key. */
function withoutCredentials(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return headers;
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(authorization|x-api-key|api-key|cookie|proxy-authorization)$/i.test(name)));
}

function responseOf(response: IncomingMessage): ProviderResponse {
  const status = response.statusCode ?? 0;
  let body: ReadableStream<Uint8Array> | null = null;
  return {
    ok: status >= 200 && status < 300,
    status,
    headers: {
      get(name: string) {
        const value = response.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    get body() {
      body ??= Readable.toWeb(response) as ReadableStream<Uint8Array>;
      return body;
    },
    // Read as a Node stream: Node's web streams (several internal modules) are not loaded for a turn (issue 36).
    chunks: () => response as AsyncIterable<Uint8Array>,
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
