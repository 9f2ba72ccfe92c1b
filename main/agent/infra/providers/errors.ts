import type { ErrorCode } from '#protocol';

/** A provider failure with a user-readable message and whether retrying can help. */
export class ProviderError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: { status?: number; retryAfterMs?: number; retryable?: boolean } = {},
  ) {
    super(message);
    this.name = 'ProviderError';
  }

  get retryable(): boolean {
    if (this.options.retryable !== undefined) return this.options.retryable;
    return ['provider_rate_limit', 'provider_server', 'provider_unreachable', 'provider_timeout', 'provider_stream_broken'].includes(this.code);
  }
}

const QUOTA_WORDS = /quota|insufficient|balance|billing|exceeded your current/i;

function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A field of an error body as text: servers send strings, objects, or (FastAPI, e.g. vLLM) arrays of `{msg}`. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    return value
      .map((item) => {
        const { msg, loc } = (item ?? {}) as { msg?: unknown; loc?: unknown };
        if (typeof msg !== 'string') return asText(item);
        return Array.isArray(loc) ? `${loc.join('.')}: ${msg}` : msg;
      })
      .join('; ');
  }
  return JSON.stringify(value);
}

function extractMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown } | null;
    if (!parsed || typeof parsed !== 'object') return body;
    const error = parsed.error;
    const fromError = error && typeof error === 'object' && !Array.isArray(error) ? asText((error as { message?: unknown }).message) : asText(error);
    return fromError ?? asText(parsed.message) ?? asText(parsed.detail) ?? body;
  } catch {
    return body;
  }
}

/** Turn a non-2xx HTTP response into an error that says what to fix. */
export function errorFromResponse(
  status: number,
  body: string,
  headers: { get(name: string): string | null },
  ctx: { url: string; model: string },
): ProviderError {
  const detail = extractMessage(body).trim().slice(0, 500);
  const suffix = detail ? ` The server said: ${detail}` : '';
  const host = safeHost(ctx.url);
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'), Date.now());
  if (status === 401 || status === 403) {
    return new ProviderError('provider_auth', `The API key was rejected by ${host} (HTTP ${status}). Open Settings and check the API key.${suffix}`, {
      status,
    });
  }
  if (status === 404) {
    return new ProviderError(
      'provider_not_found',
      `${host} answered 404 for ${ctx.url}. Check the base URL (OpenAI-compatible endpoints usually end in /v1) and that the model "${ctx.model}" exists.${suffix}`,
      { status },
    );
  }
  if (status === 429) {
    if (QUOTA_WORDS.test(detail)) {
      return new ProviderError('provider_quota', `${host} refused the request: the account is out of quota or credit (HTTP 429).${suffix}`, {
        status,
        retryable: false,
      });
    }
    return new ProviderError('provider_rate_limit', `${host} is rate limiting requests (HTTP 429).${suffix}`, { status, retryAfterMs });
  }
  if (status >= 500) {
    return new ProviderError('provider_server', `${host} had a server error (HTTP ${status}).${suffix}`, { status, retryAfterMs });
  }
  if (status === 400 && /model/i.test(detail) && /not|unknown|invalid|exist/i.test(detail)) {
    return new ProviderError('provider_not_found', `${host} does not know the model "${ctx.model}". Pick another model in Settings.${suffix}`, { status });
  }
  return new ProviderError('provider_bad_request', `${host} rejected the request (HTTP ${status}).${suffix}`, { status });
}

/** Turn a fetch/network failure into an error that says what to fix. */
export function errorFromNetwork(error: unknown, url: string): ProviderError {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const host = safeHost(url);
  const reason =
    code === 'ECONNREFUSED'
      ? 'the connection was refused — is the server running?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name could not be resolved — check the base URL'
        : code === 'ECONNRESET'
          ? 'the connection was reset'
          : (cause?.message ?? (error instanceof Error ? error.message : String(error)));
  return new ProviderError('provider_unreachable', `Could not reach ${host}: ${reason}${/[.?!]$/.test(reason) ? '' : '.'}`);
}

export function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
