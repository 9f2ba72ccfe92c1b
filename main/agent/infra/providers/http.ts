import type { ProviderFetch, ProviderResponse } from './node-fetch';
import { ProviderError, errorFromNetwork, errorFromResponse, safeHost } from './errors';
import { readSseData } from './sse';

export interface StreamTimeouts {
  /** No response headers within this time → timeout (retried). */
  connectTimeoutMs?: number;
  /** No stream data within this time → timeout (retried). */
  idleTimeoutMs?: number;
}

/** Aborts when no data has arrived for a while; re-armed on every chunk. */
class IdleTimer {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  fired = false;
  lastMs = 0;

  constructor(private readonly defaultMs: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  arm(ms = this.defaultMs): void {
    clearTimeout(this.timer);
    this.lastMs = ms;
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort(new Error('idle timeout'));
    }, ms);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** A GET or POST whose network failures become ProviderErrors that say what to fix. */
export async function providerFetch(fetchImpl: ProviderFetch, url: string, init: Parameters<ProviderFetch>[1]): Promise<ProviderResponse> {
  try {
    return await fetchImpl(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    throw errorFromNetwork(error, url);
  }
}

/** GET a JSON document (model lists), with provider errors for non-2xx answers. */
export async function getJson(fetchImpl: ProviderFetch, url: string, headers: Record<string, string>, model: string, signal?: AbortSignal): Promise<unknown> {
  const response = await providerFetch(fetchImpl, url, { method: 'GET', headers, ...(signal ? { signal } : {}) });
  const body = await response.text();
  if (!response.ok) throw errorFromResponse(response.status, body, response.headers, { url, model });
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ProviderError('provider_bad_request', `${url} did not return JSON.`);
  }
}

/**
 * POST a streaming request and hand each SSE data payload to `onData`, re-arming the idle timer on
 * every one. Cancellation rethrows the caller's abort reason; silence becomes a timeout; anything
 * else that breaks the stream becomes a (retryable) broken-stream error.
 */
export async function streamSse<T>(
  options: { fetch: ProviderFetch; url: string; headers: Record<string, string>; body: unknown; model: string; signal: AbortSignal } & StreamTimeouts,
  read: (data: AsyncIterable<string>) => Promise<T>,
): Promise<T> {
  const { url } = options;
  const idle = new IdleTimer(options.idleTimeoutMs ?? 180_000);
  const signal = AbortSignal.any([options.signal, idle.signal]);
  idle.arm(options.connectTimeoutMs ?? 120_000);
  try {
    const response = await providerFetch(options.fetch, url, { method: 'POST', headers: options.headers, body: JSON.stringify(options.body), signal });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw errorFromResponse(response.status, text, response.headers, { url, model: options.model });
    }
    const body = response.chunks?.() ?? response.body;
    if (!body) throw new ProviderError('provider_stream_broken', `${url} returned an empty body.`);
    idle.arm();
    return await read(
      (async function* () {
        for await (const data of readSseData(body)) {
          idle.arm();
          yield data;
        }
      })(),
    );
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason ?? error;
    if (idle.fired) throw new ProviderError('provider_timeout', `${safeHost(url)} sent nothing for ${Math.round(idle.lastMs / 1000)} s.`);
    if (error instanceof ProviderError) throw error;
    throw new ProviderError('provider_stream_broken', `The response stream from ${safeHost(url)} broke: ${(error as Error).message}.`);
  } finally {
    idle.dispose();
  }
}

export function parseChunk<T>(data: string, url: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ProviderError('provider_stream_broken', `${safeHost(url)} sent a stream chunk that is not JSON: ${data.slice(0, 200)}`);
  }
}
