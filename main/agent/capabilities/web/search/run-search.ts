import type { SearchProviderKind } from '#protocol';
import { brave } from './brave';
import { PROVIDER_NAMES, type SearchConfig, SearchError, type SearchErrorKind, type SearchProvider, type SearchResult } from './provider';
import { searxng } from './searxng';
import { tavily } from './tavily';
import { loadUndici } from '../net/undici';

const PROVIDERS: Record<SearchProviderKind, SearchProvider> = { searxng, brave, tavily };
const NEEDS_KEY = new Set<SearchProviderKind>(['brave', 'tavily']);
const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
export const SEARCH_TIMEOUT_MS = 30_000;

export interface SearchOptions {
  signal: AbortSignal;
  limit?: number;
  timeoutMs?: number;
}

/** Ask the configured provider; results in its order, or a SearchError saying what to do. */
export async function runSearch(config: SearchConfig, query: string, options: SearchOptions): Promise<SearchResult[]> {
  const name = PROVIDER_NAMES[config.provider];
  const provider = PROVIDERS[config.provider];
  if (!config.baseUrl) throw new SearchError('config', `${name} has no URL: set the instance's URL in Settings → Web (e.g. http://127.0.0.1:8888).`);
  if (NEEDS_KEY.has(config.provider) && !config.apiKey) {
    throw new SearchError('config', `${name} needs an API key and none is set: add it in Settings → Web, or set DEFT_SEARCH_API_KEY.`);
  }
  const timeoutMs = options.timeoutMs ?? SEARCH_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const request = provider.request(query, config, options.limit ?? 10);
  // The user chose this endpoint (often a SearXNG on their own machine), so the private-address policy of
  // FetchURL does not apply to it; nothing the model writes changes where the query goes.
  const { Agent, fetch } = await loadUndici();
  const dispatcher = new Agent({ connect: { timeout: 10_000 }, maxHeaderSize: 64 * 1024 });
  let text: string;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
      signal,
      dispatcher,
    });
    text = await readLimited(response);
    if (!response.ok) throw statusError(name, config, provider, response.status, response.statusText, response.headers.get('retry-after'), text);
  } catch (error) {
    if (error instanceof SearchError) throw error;
    if (options.signal.aborted) throw new SearchError('interrupted', 'The search was interrupted by the user.');
    if (deadline.aborted) throw new SearchError('timeout', `${name} did not answer within ${timeoutMs / 1000} s. Try again later, or go on without searching.`);
    throw networkError(name, config, error);
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
    return provider.parse(json);
  } catch (error) {
    throw new SearchError(
      'provider',
      `${name} sent an answer that is not the JSON expected (${(error as Error).message}). Check the URL in Settings → Web points at the ${name} API.`,
    );
  }
}

async function readLimited(response: Awaited<ReturnType<typeof fetch>>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new SearchError('provider', `The search provider's answer is larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB; refusing it.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const KEY_HINT = 'Check the key in Settings → Web (or DEFT_SEARCH_API_KEY). Tell the user; do not retry until it is fixed.';

function statusError(
  name: string,
  config: SearchConfig,
  provider: SearchProvider,
  status: number,
  statusText: string,
  retryAfter: string | null,
  body: string,
): SearchError {
  const kind: SearchErrorKind = provider.statusKind?.(status) ?? (status === 401 || status === 403 ? 'auth' : status === 429 ? 'rate_limit' : 'provider');
  const detail = body
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  const head = `${name} answered HTTP ${status}${statusText ? ` ${statusText}` : ''}${detail ? ` (${detail})` : ''}`;
  switch (kind) {
    case 'auth':
      return new SearchError('auth', `${head}: the API key was not accepted${config.apiKey ? '' : ' (no key is set)'}. ${KEY_HINT}`);
    case 'rate_limit':
      return new SearchError(
        'rate_limit',
        `${head}: rate limit or plan quota reached${retryAfter ? `; retry after ${retryAfter} s` : ''}. Wait before searching again, or go on without searching.`,
      );
    case 'config':
      return new SearchError(
        'config',
        `${head}: the instance refuses JSON answers. Enable the json format in its settings.yml (search: formats: [html, json]), then try again.`,
      );
    default:
      return new SearchError('provider', `${head}. The provider failed; try again later, or go on without searching.`);
  }
}

function networkError(name: string, config: SearchConfig, error: unknown): SearchError {
  let cause: unknown = error;
  while (cause instanceof Error && cause.cause) cause = cause.cause;
  if (cause instanceof AggregateError && cause.errors[0]) cause = cause.errors[0];
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail = cause instanceof Error ? cause.message : String(cause);
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new SearchError('timeout', `${name} at ${config.baseUrl} did not answer in time (${code}). Try again later, or go on without searching.`);
  }
  return new SearchError(
    'network',
    `Could not reach ${name} at ${config.baseUrl}: ${detail}${code ? ` (${code})` : ''}. Check that it is running and that the URL in Settings → Web is right.`,
  );
}
