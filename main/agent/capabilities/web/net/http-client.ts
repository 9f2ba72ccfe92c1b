import { formatBytes } from '#protocol/helpers/units';
import type { Agent, Response as UndiciResponse } from 'undici';
import { blockedAddressReason, isIpLiteral } from '#infra/net/address-policy';
import { FetchRefusal, type Target, checkTargetHost, parseTarget, privateAllowed, privateRefusal } from './target';
import { type Resolver, pinnedAgent } from './pinned-agent';
import { loadUndici } from './undici';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_REDIRECTS = 10;
export const FETCH_TIMEOUT_MS = 30_000;

export interface FetchLimits {
  maxBytes: number;
  maxRedirects: number;
  /** For the whole fetch: every redirect, headers and body. */
  timeoutMs: number;
}

export interface SafeFetchOptions extends Partial<FetchLimits> {
  signal: AbortSignal;
  resolver: Resolver;
  /** Hosts the user allowed to be private (`host`, `host:port`, `*.domain`). */
  allowPrivateHosts: readonly string[];
}

/** A response read in full (decoded, within the limits). */
export interface FetchedPage {
  kind: 'page';
  target: Target;
  status: number;
  contentType: string;
  body: Buffer;
  /** URLs redirected through, in order (without the final one). */
  redirects: string[];
}

/** A redirect to another host: not followed, so that the permission for that host is asked for in its own call. */
export interface CrossHostRedirect {
  kind: 'redirect';
  from: Target;
  to: Target;
  status: number;
  redirects: string[];
}

/** Same host, or the same host with or without a leading `www.`, on either scheme. */
function sameHost(a: Target, b: Target): boolean {
  const bare = (t: Target) => t.authority.replace(/^www\./, '').replace(/:(80|443)$/, '');
  return bare(a) === bare(b);
}

/** A fetch that failed: an HTTP error status, a network problem, a limit. The message is for the model. */
export class FetchFailure extends Error {
  override name = 'FetchFailure';
  constructor(
    message: string,
    readonly kind: 'http' | 'dns' | 'refused' | 'reset' | 'tls' | 'timeout' | 'too-large' | 'headers' | 'redirects' | 'interrupted' | 'network',
    readonly status?: number,
  ) {
    super(message);
  }
}

const HEADERS = {
  'user-agent': 'Deft/0.1 (desktop coding agent; +https://github.com/deft)',
  accept: 'text/markdown, text/html;q=0.9, text/plain;q=0.9, application/json;q=0.8, application/pdf;q=0.7, */*;q=0.5',
  'accept-language': 'en;q=1.0, *;q=0.5',
};

/**
 * GET a URL as the model asked, safely: http(s) only, no credentials, every hop (at most 10 redirects)
 * checked against the private-address policy and connected to the address that was checked, 10 MiB of
 * decoded body at most (Content-Length first, then the bytes read), one deadline for the whole fetch.
 */
export async function safeFetch(input: string, options: SafeFetchOptions): Promise<FetchedPage | CrossHostRedirect> {
  const limits: FetchLimits = {
    maxBytes: options.maxBytes ?? MAX_BODY_BYTES,
    maxRedirects: options.maxRedirects ?? MAX_REDIRECTS,
    timeoutMs: options.timeoutMs ?? FETCH_TIMEOUT_MS,
  };
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const redirects: string[] = [];
  let target = parseTarget(input);
  try {
    for (;;) {
      const allowPrivate = privateAllowed(target, options.allowPrivateHosts);
      checkTargetHost(target, allowPrivate);
      const agent = await pinnedAgent(target, { resolver: options.resolver, allowPrivate });
      const { fetch } = await loadUndici();
      try {
        const response = await fetch(target.url, { dispatcher: agent, redirect: 'manual', signal, headers: HEADERS });
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel().catch(() => undefined);
          if (redirects.length >= limits.maxRedirects) {
            throw new FetchFailure(
              `Too many redirects: ${input} redirected more than ${limits.maxRedirects} times (last to ${location.slice(0, 300)}). Fetch the final URL directly if you know it.`,
              'redirects',
            );
          }
          const next = parseTarget(location, target.url);
          if (!sameHost(target, next)) {
            // Checked now, so a redirect into the private network is refused here, not merely reported.
            await checkPublic(next, options);
            return { kind: 'redirect', from: target, to: next, status: response.status, redirects };
          }
          redirects.push(target.url.href);
          target = next;
          continue;
        }
        const contentType = response.headers.get('content-type') ?? '';
        if (response.status >= 400) {
          const body = await readBody(response, 16 * 1024, target).catch(() => Buffer.alloc(0));
          throw new FetchFailure(httpErrorMessage(target, response.status, response.statusText, contentType, body), 'http', response.status);
        }
        const body = await readBody(response, limits.maxBytes, target);
        return { kind: 'page', target, status: response.status, contentType, body, redirects };
      } finally {
        void destroy(agent);
      }
    }
  } catch (error) {
    if (error instanceof FetchRefusal || error instanceof FetchFailure) throw error;
    if (options.signal.aborted) throw new FetchFailure('The fetch was interrupted by the user.', 'interrupted');
    if (deadline.aborted)
      throw new FetchFailure(
        `Timed out after ${limits.timeoutMs / 1000} s fetching ${target.url.href} (the limit covers redirects, headers and body together). The server may be slow or unreachable; try again later or another source.`,
        'timeout',
      );
    throw classifyNetworkError(error, target);
  }
}

/** The private-address policy for a target without connecting to it (literal addresses, then DNS). */
async function checkPublic(target: Target, options: SafeFetchOptions): Promise<void> {
  const allowPrivate = privateAllowed(target, options.allowPrivateHosts);
  checkTargetHost(target, allowPrivate);
  if (allowPrivate || isIpLiteral(target.hostname)) return;
  const answers = await options.resolver(target.hostname).catch(() => []);
  for (const { address } of answers) {
    const reason = blockedAddressReason(address);
    if (reason) throw privateRefusal(target, `${target.hostname} resolves to ${address}, ${reason}`);
  }
}

async function destroy(agent: Agent): Promise<void> {
  await agent.destroy().catch(() => undefined);
}

async function readBody(response: Response | UndiciResponse, maxBytes: number, target: Target): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  const tooLarge = (size: string) =>
    new FetchFailure(
      `${target.url.href} is ${size}: FetchURL reads at most ${formatBytes(maxBytes)}. Look for a smaller page (a section, the raw file, an API) instead.`,
      'too-large',
    );
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${formatBytes(declared)} (Content-Length)`);
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    // Counted after decompression: a small gzip that inflates past the cap stops here.
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`larger than ${formatBytes(maxBytes)} once decoded`);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, total);
}

function httpErrorMessage(target: Target, status: number, statusText: string, contentType: string, body: Buffer): string {
  let reason = body.toString('utf8');
  if (/html/i.test(contentType))
    reason = (/<title[^>]*>([\s\S]*?)<\/title>/i.exec(reason)?.[1] ?? reason.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')).replace(/<[^>]*>/g, ' ');
  reason = reason.replace(/\s+/g, ' ').trim().slice(0, 200);
  const hint =
    status === 404 || status === 410
      ? 'Check the URL, or search for the page.'
      : status === 401 || status === 403
        ? 'The page needs a login or blocks automated access; find another source.'
        : status === 429
          ? 'The server is rate limiting; wait before trying again.'
          : status >= 500
            ? 'The server failed; try again later or another source.'
            : '';
  return `Failed to fetch ${target.url.href}: HTTP ${status}${statusText ? ` ${statusText}` : ''}${reason ? ` — ${reason}` : ''}. ${hint}`.trim();
}

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|HOSTNAME_MISMATCH|ALTNAME/;

/** undici wraps the cause in TypeError('fetch failed'); name what went wrong. */
function classifyNetworkError(error: unknown, target: Target): FetchFailure | FetchRefusal {
  let cause: unknown = error;
  for (let i = 0; i < 5 && cause instanceof Error && cause.cause; i++) {
    if (cause instanceof FetchRefusal) break;
    cause = cause.cause;
  }
  if (cause instanceof FetchRefusal) return cause;
  // An aggregate (several addresses tried): judge by the first.
  if (cause instanceof AggregateError && cause.errors[0]) cause = cause.errors[0];
  const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? '';
  const detail = cause instanceof Error ? cause.message : String(cause);
  const where = target.url.host;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_NODATA') {
    return new FetchFailure(`DNS lookup failed for ${target.hostname} (${code}): the host name does not resolve. Check the spelling of the URL.`, 'dns');
  }
  if (code === 'ECONNREFUSED') return new FetchFailure(`Connection refused by ${where}: nothing is listening there. Check the URL and port.`, 'refused');
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET')
    return new FetchFailure(`The connection to ${where} was closed unexpectedly (${code}). Try again, or another source.`, 'reset');
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new FetchFailure(`Timed out connecting to ${where} (${code}). The server may be down or unreachable from here.`, 'timeout');
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return new FetchFailure(`${where} sent response headers larger than 64 KiB, so the response was refused.`, 'headers');
  if (TLS_CODES.test(code) || /certificate|tls|ssl/i.test(detail)) {
    return new FetchFailure(
      `TLS error talking to ${where}: ${detail}${code ? ` (${code})` : ''}. The certificate is not valid for this host or not trusted; Deft does not skip the check.`,
      'tls',
    );
  }
  if (code === 'ENETUNREACH' || code === 'EHOSTUNREACH')
    return new FetchFailure(`Network error: ${where} is unreachable from this machine (${code}).`, 'network');
  return new FetchFailure(`Network error fetching ${target.url.href}: ${detail}${code ? ` (${code})` : ''}.`, 'network');
}

export { FetchRefusal };
