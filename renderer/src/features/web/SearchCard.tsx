import { memo, useState } from 'react';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import { ToolHeader } from '../tools/ToolHeader';
import type { ToolItem } from '../../stores/transcript';
import { HookBadge } from '../hooks/HookBadge';
import { ExternalLink, hostOf } from './ExternalLink';
import './web.css';

type Results = Extract<ToolResultDisplay, { kind: 'web_results' }>;

/** WebSearch: the query, and the results with titles that open in the system browser. */
export const SearchCard = memo(function SearchCard({ item }: { item: ToolItem }) {
  const input = item.display as Extract<ToolInputDisplay, { kind: 'web_search' }>;
  const found: Results | undefined = item.result?.display?.kind === 'web_results' ? item.result.display : undefined;
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? (item.status === 'error' || Boolean(found?.results.length));
  const count = found?.results.length;
  return (
    <section className={`tool-card web-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <ToolHeader
        item={item}
        icon="search"
        tool={item.name}
        subject={
          <>
            <span className="web-title">“{input.query}”</span> {input.provider ? <span className="web-host">{input.provider}</span> : null}
          </>
        }
        subjectText={`“${input.query}”`}
        meta={count !== undefined ? <span className="web-chip">{count === 1 ? '1 result' : `${count} results`}</span> : null}
        expanded={expanded}
        onToggle={item.status === 'running' ? undefined : () => setOpen(!expanded)}
      />
      {expanded && item.result ? (
        <div className="tool-body">
          {item.status === 'error' ? <pre className="tool-output tool-output-error">{item.result.output}</pre> : null}
          {found && !found.results.length ? <p className="web-empty">No results.</p> : null}
          {found?.results.length ? (
            <ol className="web-results">
              {found.results.map((result, i) => (
                <li key={`${i}-${result.url}`}>
                  <ExternalLink href={result.url} className="web-result-title">
                    {result.title}
                  </ExternalLink>
                  <div className="web-result-meta">
                    <span>{result.site ?? hostOf(result.url)}</span>
                    {result.date ? <span>{result.date}</span> : null}
                  </div>
                  {result.snippet ? <p className="web-result-snippet">{result.snippet}</p> : null}
                </li>
              ))}
            </ol>
          ) : null}
        </div>
      ) : null}
      <HookBadge hooks={item.hooks} />
    </section>
  );
});
