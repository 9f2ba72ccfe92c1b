import { type SearchProvider, type SearchResult, plainText, resultUrl } from './provider';

interface SearxngResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  publishedDate?: unknown;
  engine?: unknown;
}

/** A self-hosted SearXNG: `GET {baseUrl}/search?q=…&format=json` (the instance must enable the json format). */
export const searxng: SearchProvider = {
  request: (query, config) => ({
    url: `${config.baseUrl}/search?${new URLSearchParams({ q: query, format: 'json', safesearch: '0' }).toString()}`,
    method: 'GET',
    headers: { accept: 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
  }),
  parse: (json) => {
    const results = (json as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw new Error('the answer has no "results" list');
    return (results as SearxngResult[]).flatMap((r): SearchResult[] => {
      const url = resultUrl(r.url);
      if (!url) return [];
      const date = plainText(r.publishedDate);
      const snippet = plainText(r.content);
      return [{ title: plainText(r.title) ?? url, url, ...(date ? { date: date.slice(0, 10) } : {}), ...(snippet ? { snippet } : {}) }];
    });
  },
  // SearXNG answers 403 when the json format is not enabled in its settings.yml.
  statusKind: (status) => (status === 403 ? 'config' : undefined),
};
