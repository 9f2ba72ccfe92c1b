import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

// The web: FetchURL's private-host allowance and WebSearch's provider (Settings → Web).

/** The schemas of this file, built on first use (webSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildWebSchemas = () => {
  /** The search services WebSearch can use. */
  const SearchProviderKind = z.enum(['searxng', 'brave', 'tavily']);
  /** `host`, `host:port`, `[v6]:port` or `*.domain`: a host FetchURL may reach although it is private. */
  const PrivateHostEntry = z
    .string()
    .trim()
    .min(1)
    .max(300)
    .regex(
      /^(\*\.)?([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/,
      'Write a host name or address, optionally with :port (e.g. 127.0.0.1:8080, intranet.local, *.corp.example)',
    );
  /** The search provider as the user enters it; `apiKey` omitted keeps the stored key, '' clears it. */
  const WebSearchInput = z
    .object({
      provider: SearchProviderKind,
      /** Required for SearXNG (the instance); optional for the others (a proxy or a test server). */
      baseUrl: z.string().trim().max(2_000).optional(),
      apiKey: z.string().max(1_000).optional(),
    })
    .strict();
  /** Web settings as the UI sees them (never the key itself). */
  const PublicWebSettings = z.object({
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
  /** One search result as the Test button shows it. */
  const WebSearchResult = z.object({
    title: z.string(),
    url: z.string(),
    site: z.string().optional(),
    date: z.string().optional(),
    snippet: z.string().optional(),
  });
  return { SearchProviderKind, PrivateHostEntry, WebSearchInput, PublicWebSettings, WebSearchResult };
};
export type WebSchemas = ReturnType<typeof buildWebSchemas>;
export const webSchemas: () => WebSchemas = builtOnce(buildWebSchemas);

// The types of the schemas above (each documented at its schema).
export type SearchProviderKind = z.infer<WebSchemas['SearchProviderKind']>;
export type WebSearchInput = z.infer<WebSchemas['WebSearchInput']>;
export type PublicWebSettings = z.infer<WebSchemas['PublicWebSettings']>;
export type WebSearchResult = z.infer<WebSchemas['WebSearchResult']>;
