import { join } from 'node:path';
import type { SessionSearchHit } from '#protocol';
import { logEvents } from './log-lines';
import { LOG_FILE, type SessionMeta } from './session';

const SNIPPET_RADIUS = 60;

/** Where the text a person reads lives in a session log: their prompts and the model's answers. */
function searchableText(event: { type: string; text?: unknown }): string | null {
  return (event.type === 'turn.started' || event.type === 'assistant.delta') && typeof event.text === 'string' ? event.text : null;
}

/** A line of text around the first match, whitespace folded. */
export function snippetAround(text: string, index: number, length: number): string {
  const start = Math.max(0, index - SNIPPET_RADIUS);
  const end = Math.min(text.length, index + length + SNIPPET_RADIUS);
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/**
 * Sessions whose title or conversation text contains `query` — plain text, any case, never a pattern.
 * Logs are streamed line by line, and a line is parsed only when its raw JSON text could hold the
 * query, so searching many long sessions stays cheap in time and memory. Newest sessions first.
 */
export async function searchSessions(
  root: string,
  metas: readonly SessionMeta[],
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<SessionSearchHit[]> {
  const needle = query.toLowerCase();
  // How the query looks inside a JSON string (quotes, backslashes and control characters escaped).
  const escaped = JSON.stringify(needle).slice(1, -1);
  const hits: SessionSearchHit[] = [];
  for (const meta of metas) {
    if (hits.length >= limit || signal?.aborted) break;
    const base = { sessionId: meta.id, title: meta.title, updatedAt: meta.updatedAt };
    if (meta.title.toLowerCase().includes(needle)) {
      hits.push({ ...base, matchedIn: 'title' });
      continue;
    }
    try {
      for await (const event of logEvents(join(root, meta.id, LOG_FILE), (line) => line.toLowerCase().includes(escaped))) {
        const text = searchableText(event);
        const at = text?.toLowerCase().indexOf(needle) ?? -1;
        if (text && at >= 0) {
          hits.push({ ...base, matchedIn: 'text', snippet: snippetAround(text, at, needle.length) });
          break;
        }
      }
    } catch {
      // An unreadable log is simply not a match.
    }
  }
  return hits;
}
