import { z } from 'zod';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import { type Tool, ToolInputError, access, defineTool, errorResult } from '#contract/tool';
import { CITE_REMINDER, formatResults } from '../../search/format';
import { PROVIDER_NAMES, type SearchConfig, SearchError, type SearchErrorKind } from '../../search/provider';
import { runSearch } from '../../search/run-search';
import description from './web-search.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

const input = toolInput('WebSearch', () =>
  z.object({
    query: z.string().trim().min(1).max(400).describe('What to search for, as you would type it into a search engine.'),
  }),
);

const ERROR_WORDS: Record<SearchErrorKind, string> = {
  config: 'configuration',
  auth: 'auth',
  rate_limit: 'rate limit',
  network: 'network',
  timeout: 'timeout',
  provider: 'provider error',
  interrupted: 'interrupted',
};

export interface WebSearchDeps {
  /** The configured provider with its key, or null when none is chosen. */
  search(): Promise<SearchConfig | null>;
  timeoutMs?: number;
}

/** WebSearch: the query goes to the provider the user configured, and nowhere else. */
export function webSearchTool(deps: WebSearchDeps): Tool<SchemaOf<typeof input>> {
  return defineTool({
    name: 'WebSearch',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args) {
      const config = await deps.search();
      if (!config) throw new ToolInputError('No search provider is configured, so WebSearch cannot run. The user can choose one in Settings → Web.');
      const provider = PROVIDER_NAMES[config.provider];
      return {
        accesses: access.none(),
        description: `Search ${provider} for "${args.query}"`,
        display: { kind: 'web_search', query: args.query, provider },
        // Only the query leaves the machine, to the service the user chose: it runs in every mode unless a rule says otherwise.
        readOnly: true,
        approvalRule: exactRule('WebSearch', args.query),
        matchesRule: (argument) => matchGlobSubject(argument, args.query),
        execute: async (ctx) => {
          try {
            const results = await runSearch(config, args.query, { signal: ctx.signal, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) });
            return {
              output: formatResults(results),
              display: { kind: 'web_results', query: args.query, provider, results },
              ...(results.length ? { note: `<system-reminder>${CITE_REMINDER}</system-reminder>` } : {}),
            };
          } catch (error) {
            if (error instanceof SearchError) return errorResult(`Web search failed (${ERROR_WORDS[error.kind]}): ${error.message}`);
            throw error;
          }
        },
      };
    },
  });
}
