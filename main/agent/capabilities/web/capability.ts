import { CommandError } from '#contract/errors';
import type { CapabilityFactory } from '#contract/capability';
import type { FetchLimits } from './net/http-client';
import { type Resolver, systemResolver } from './net/pinned-agent';
import type { ErrorCode } from '#protocol';
import { SearchError, type SearchErrorKind } from './search/provider';
import { runSearch } from './search/run-search';
import { WebSettings } from './settings';
import { fetchUrlTool } from './tools/fetch-url/fetch-url';
import { webSearchTool } from './tools/web-search/web-search';

export interface WebCapabilityOptions {
  /** Host name → addresses; the system resolver by default (tests answer names themselves). */
  resolver?: Resolver;
  /** Where DEFT_SEARCH_API_KEY is read; process.env by default. */
  env?: Record<string, string | undefined>;
  fetchLimits?: Partial<FetchLimits>;
  searchTimeoutMs?: number;
}

/** The Test button's failures, in the codes provider failures already use. */
const COMMAND_CODES: Record<SearchErrorKind, ErrorCode> = {
  config: 'not_configured',
  auth: 'provider_auth',
  rate_limit: 'provider_rate_limit',
  network: 'provider_unreachable',
  timeout: 'provider_timeout',
  provider: 'provider_server',
  interrupted: 'provider_timeout',
};

/**
 * The web: FetchURL (any http(s) URL, never the user's machine or private network unless they allowed
 * the host) and WebSearch (offered when a search provider is configured), and Settings → Web.
 */
export function webCapability(options: WebCapabilityOptions = {}): CapabilityFactory {
  return (core) => {
    const settings = new WebSettings(core.home, core.place, core.secrets, options.env ?? process.env);
    const resolver = options.resolver ?? systemResolver;
    return {
      name: 'web',
      tools: () => [
        fetchUrlTool({ resolver, allowedPrivateHosts: () => settings.allowedPrivateHosts(), ...(options.fetchLimits ? { limits: options.fetchLimits } : {}) }),
        ...(settings.searchConfigured()
          ? [webSearchTool({ search: () => settings.search(), ...(options.searchTimeoutMs ? { timeoutMs: options.searchTimeoutMs } : {}) })]
          : []),
      ],
      commands: {
        getWebSettings: async () => settings.publicView(),
        setWebSettings: async (input) => {
          await settings.save(input);
          return settings.publicView();
        },
        testWebSearch: async ({ search, query }) => {
          try {
            const results = await runSearch(await settings.searchFromInput(search), query, {
              signal: AbortSignal.timeout(60_000),
              limit: 5,
              ...(options.searchTimeoutMs ? { timeoutMs: options.searchTimeoutMs } : {}),
            });
            return { results: results.slice(0, 5) };
          } catch (error) {
            if (error instanceof SearchError) throw new CommandError(COMMAND_CODES[error.kind], error.message);
            throw error;
          }
        },
      },
    };
  };
}
