import { type SearchProvider, type SearchResult, plainText, resultUrl } from './provider';

interface TavilyResult {
  title?: unknown;
  url?: unknown;
  content?: unknown;
  published_date?: unknown;
}

/** Tavily: `POST {base}/search` with a bearer key and `{query, max_results}`; results in `results`. */
export const tavily: SearchProvider = {
  request: (query, config, limit) => ({
    url: `${config.baseUrl}/search`,
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${config.apiKey ?? ''}` },
    body: JSON.stringify({ query, max_results: Math.min(limit, 20), search_depth: 'basic', include_answer: false, include_images: false }),
  }),
  parse: (json) => {
    const results = (json as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) throw new Error('the answer has no "results" list');
    return (results as TavilyResult[]).flatMap((r): SearchResult[] => {
      const url = resultUrl(r.url);
      if (!url) return [];
      const date = plainText(r.published_date);
      const snippet = plainText(r.content);
      return [{ title: plainText(r.title) ?? url, url, ...(date ? { date: date.slice(0, 10) } : {}), ...(snippet ? { snippet } : {}) }];
    });
  },
  // Tavily's plan limits (432: key limit, 433: pay-as-you-go limit) are rate limits to the user.
  statusKind: (status) => (status === 432 || status === 433 ? 'rate_limit' : undefined),
};
