import type { SearchProviderKind, WebSearchResult } from '#protocol';

export type SearchResult = WebSearchResult;

/** A configured search provider with its key. */
export interface SearchConfig {
  provider: SearchProviderKind;
  baseUrl: string;
  apiKey?: string;
  apiKeySource: 'stored' | 'env' | 'none';
}

export const DEFAULT_BASE_URLS: Record<SearchProviderKind, string> = {
  searxng: '',
  brave: 'https://api.search.brave.com/res/v1',
  tavily: 'https://api.tavily.com',
};

export const PROVIDER_NAMES: Record<SearchProviderKind, string> = { searxng: 'SearXNG', brave: 'Brave Search', tavily: 'Tavily' };

/** How a search failed; each kind tells the model (and the Test button) what to do. */
export type SearchErrorKind = 'config' | 'auth' | 'rate_limit' | 'network' | 'timeout' | 'provider' | 'interrupted';

export class SearchError extends Error {
  override name = 'SearchError';
  constructor(
    readonly kind: SearchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** One HTTP exchange with a provider, as the providers describe it. */
export interface SearchRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** A provider: how to ask, and how to read the answer. */
export interface SearchProvider {
  request(query: string, config: SearchConfig, limit: number): SearchRequest;
  parse(json: unknown): SearchResult[];
  /** Provider-specific meaning of an error status, when it differs from the usual one. */
  statusKind?(status: number): SearchErrorKind | undefined;
}

/** Text without HTML tags and entities (providers mark matches with <strong> and escape quotes). */
export function plainText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos|#39|nbsp);/gi, (entity) => {
      const name = entity.slice(1, -1).toLowerCase();
      if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16) || 32);
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)) || 32);
      return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }[name] ?? entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
  return text || undefined;
}

/** An http(s) URL from a result, or null (results pointing elsewhere are dropped). */
export function resultUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
