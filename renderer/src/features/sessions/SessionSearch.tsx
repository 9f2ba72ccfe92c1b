import { useEffect, useState } from 'react';
import type { SessionSearchHit } from '#protocol';
import { Icon, Spinner } from '../../components/Icon';
import { openSession, searchSessions } from '../../actions/sessions';
import { useSessions } from '../../stores/sessions';
import { snippetText } from './snippet';
import './sessions.css';

/** What was found for a query: titles at once (from the list), then the core's search of the conversations. */
function useSessionSearch(query: string): { hits: SessionSearchHit[]; searching: boolean } {
  const sessions = useSessions((s) => s.sessions);
  const [found, setFound] = useState<{ query: string; hits: SessionSearchHit[] } | null>(null);
  const text = query.trim();
  useEffect(() => {
    if (!text) return;
    let stale = false;
    const timer = setTimeout(() => {
      void searchSessions(text).then((hits) => {
        if (!stale) setFound({ query: text, hits: hits ?? [] });
      });
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [text]);
  if (found && found.query === text) return { hits: found.hits, searching: false };
  const needle = text.toLowerCase();
  const byTitle = sessions
    .filter((s) => s.title.toLowerCase().includes(needle))
    .map((s) => ({ sessionId: s.id, title: s.title, updatedAt: s.updatedAt, matchedIn: 'title' as const }));
  return { hits: byTitle, searching: true };
}

/** The text with each occurrence of the query marked. */
function Marked({ text, query }: { text: string; query: string }) {
  const lower = text.toLowerCase();
  const needle = query.trim().toLowerCase();
  const parts = [];
  let at = 0;
  for (let i = lower.indexOf(needle); needle && i >= 0; i = lower.indexOf(needle, i + needle.length)) {
    parts.push(text.slice(at, i), <mark key={i}>{text.slice(i, i + needle.length)}</mark>);
    at = i + needle.length;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

/** The search box above the session list. */
export function SessionSearchBox({ query, onQuery }: { query: string; onQuery: (query: string) => void }) {
  return (
    <div className="session-search">
      <Icon name="search" size={14} />
      <input
        type="search"
        aria-label="Search sessions"
        placeholder="Search sessions"
        value={query}
        maxLength={200}
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && query) {
            e.preventDefault();
            onQuery('');
          }
        }}
      />
    </div>
  );
}

/** Sessions matching the query, by title or by what was said in them (with the passage). */
export function SessionSearchResults({ query, onOpen }: { query: string; onOpen: () => void }) {
  const { hits, searching } = useSessionSearch(query);
  const currentId = useSessions((s) => s.currentId);
  return (
    <div className="session-results">
      <p className="session-results-status" role="status">
        {searching ? <Spinner size={10} /> : null} {searching ? 'Searching conversations…' : `${hits.length} session${hits.length === 1 ? '' : 's'} found`}
      </p>
      <ul className="session-list" aria-label="Search results">
        {hits.map((hit) => (
          <li key={hit.sessionId} className={`session-row${hit.sessionId === currentId ? ' session-current' : ''}`}>
            <button
              type="button"
              className="session-open"
              title={hit.title}
              onClick={() => {
                void openSession(hit.sessionId);
                onOpen();
              }}
            >
              <span className="session-title">
                <Marked text={hit.title} query={query} />
              </span>
              {hit.snippet ? (
                <span className="session-snippet">
                  <Marked text={snippetText(hit.snippet)} query={query} />
                </span>
              ) : null}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
