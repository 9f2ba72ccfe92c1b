/** Error codes the user fixes in Settings (the key, the URL, the model). */
export const SETTINGS_CODES = new Set([
  'provider_auth',
  'provider_not_found',
  'provider_unreachable',
  'provider_bad_request',
  'provider_quota',
  'not_configured',
  'unsupported',
]);

/** A headline per error code, above the message. */
export const HEADLINES: Record<string, string> = {
  provider_auth: 'The API key was rejected',
  provider_not_found: 'Model or endpoint not found',
  provider_unreachable: 'The model server cannot be reached',
  provider_quota: 'Out of quota',
  provider_rate_limit: 'Rate limited',
  provider_server: 'The model server failed',
  provider_timeout: 'The model server stopped responding',
  provider_stream_broken: 'The answer stream broke',
  not_configured: 'No model configured',
};

export const headlineFor = (code: string | undefined) => HEADLINES[code ?? ''] ?? 'Something went wrong';
