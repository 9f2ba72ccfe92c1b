import { type SearchProvider, type SearchResult, plainText, resultUrl } from './provider';

interface BraveResult {
  title?: unknown;
  url?: unknown;
  description?: unknown;
  age?: unknown;
  page_age?: unknown;
  profile?: { name?: unknown };
}

/** Brave Search API: `GET {base}/web/search?q=…&count=N` with `X-Subscription-Token`; results in `web.results`. */
export const brave: SearchProvider = {
  request: (query, config, limit) => ({
    url: `${config.baseUrl}/web/search?${new URLSearchParams({ q: query, count: String(Math.min(limit, 20)) }).toString()}`,
    method: 'GET',
    headers: { accept: 'application/json', 'x-subscription-token': config.apiKey ?? '' },
  }),
  parse: (json) => {
    const web = (json as { web?: { results?: unknown } } | null)?.web;
    // No `web` section at all is an answer without web results (Brave omits it then).
    const results = web?.results ?? [];
    if (!Array.isArray(results)) throw new Error('"web.results" is not a list');
    return (results as BraveResult[]).flatMap((r): SearchResult[] => {
      const url = resultUrl(r.url);
      if (!url) return [];
      const site = plainText(r.profile?.name);
      const date = plainText(r.page_age)?.slice(0, 10) ?? plainText(r.age);
      const snippet = plainText(r.description);
      return [{ title: plainText(r.title) ?? url, url, ...(site ? { site } : {}), ...(date ? { date } : {}), ...(snippet ? { snippet } : {}) }];
    });
  },
};
