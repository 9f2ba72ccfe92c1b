import { type SearchResult, hostOf } from './provider';

export const CITE_REMINDER =
  'When you use these results, cite the pages as Markdown links, e.g. [Title](URL). Fetch a page with FetchURL to read more than its snippet.';

/** One block per result — Title, Site, Date (when known), URL, Snippet — separated by `---`. */
export function formatResults(results: readonly SearchResult[]): string {
  if (!results.length) return 'No search results found.';
  return results
    .map((r) =>
      [
        `Title: ${r.title}`,
        `Site: ${r.site ?? hostOf(r.url)}`,
        ...(r.date ? [`Date: ${r.date}`] : []),
        `URL: ${r.url}`,
        ...(r.snippet ? [`Snippet: ${r.snippet}`] : []),
      ].join('\n'),
    )
    .join('\n---\n');
}
