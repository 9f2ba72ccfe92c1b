import { z } from 'zod';

// The web: FetchURL's private-host allowance and WebSearch's provider (Settings → Web).

/** The search services WebSearch can use. */
export const SearchProviderKind = z.enum(['searxng', 'brave', 'tavily']);
export type SearchProviderKind = z.infer<typeof SearchProviderKind>;

/** `host`, `host:port`, `[v6]:port` or `*.domain`: a host FetchURL may reach although it is private. */
export const PrivateHostEntry = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .regex(
    /^(\*\.)?([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/,
    'Write a host name or address, optionally with :port (e.g. 127.0.0.1:8080, intranet.local, *.corp.example)',
  );

/** The search provider as the user enters it; `apiKey` omitted keeps the stored key, '' clears it. */
export const WebSearchInput = z
  .object({
    provider: SearchProviderKind,
    /** Required for SearXNG (the instance); optional for the others (a proxy or a test server). */
    baseUrl: z.string().trim().max(2_000).optional(),
    apiKey: z.string().max(1_000).optional(),
  })
  .strict();
export type WebSearchInput = z.infer<typeof WebSearchInput>;

/** Web settings as the UI sees them (never the key itself). */
export const PublicWebSettings = z.object({
  search: z
    .object({
      provider: SearchProviderKind,
      baseUrl: z.string(),
      hasApiKey: z.boolean(),
      /** `env`: DEFT_SEARCH_API_KEY, which wins over a stored key. */
      apiKeySource: z.enum(['stored', 'env', 'none']),
    })
    .nullable(),
  /** From ~/.deft/settings.json. */
  allowPrivateHosts: z.array(z.string()),
  /** From the workspace's own .deft/settings*.json: used only once the folder is trusted. */
  workspaceHosts: z.object({ hosts: z.array(z.string()), trusted: z.boolean() }),
  /** Entries or values that could not be used, with the reason. */
  problems: z.array(z.string()),
});
export type PublicWebSettings = z.infer<typeof PublicWebSettings>;

/** One search result as the Test button shows it. */
export const WebSearchResult = z.object({
  title: z.string(),
  url: z.string(),
  site: z.string().optional(),
  date: z.string().optional(),
  snippet: z.string().optional(),
});
export type WebSearchResult = z.infer<typeof WebSearchResult>;
