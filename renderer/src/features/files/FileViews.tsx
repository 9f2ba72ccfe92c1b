import { type ReactNode, useMemo, useState } from 'react';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import { Icon } from '../../components/Icon';
import { FilePath } from './FilePath';
import { CodeLine, highlightLines, languageFor } from './highlight';

type Of<K extends ToolResultDisplay['kind']> = Extract<ToolResultDisplay, { kind: K }>;
type InputOf<K extends ToolInputDisplay['kind']> = Extract<ToolInputDisplay, { kind: K }>;

const PREVIEW_LINES = 200;

/** What Read returned: a highlighted preview with line numbers (the card's title says the path and the range). */
export function FileContentView({ display }: { display: Of<'file_content'> }) {
  const [all, setAll] = useState(false);
  const lines = useMemo(() => highlightLines(display.content ?? '', languageFor(display.path)), [display.content, display.path]);
  const start = display.range?.start ?? 1;
  const shown = all ? lines : lines.slice(0, PREVIEW_LINES);
  return (
    <div className="file-view">
      {display.content ? (
        <div className="code-scroll">
          <table className="code-table">
            <tbody>
              {shown.map((segments, i) => (
                <tr key={i}>
                  <td className="code-no">{start + i}</td>
                  <td className="code-text">
                    <CodeLine segments={segments} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="empty-note">The file is empty.</p>
      )}
      {lines.length > shown.length ? (
        <button type="button" className="link-button" onClick={() => setAll(true)}>
          Show all {lines.length.toLocaleString()} lines
        </button>
      ) : null}
    </div>
  );
}

function highlightMatch(text: string, query: string) {
  let pattern: RegExp;
  try {
    pattern = new RegExp(query, 'gi');
  } catch {
    return text;
  }
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (!match[0]) break;
    parts.push(text.slice(last, match.index), <mark key={match.index}>{match[0]}</mark>);
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** Grep's results, grouped by file. */
export function SearchResultsView({ display }: { display: Of<'search_results'> }) {
  const groups = useMemo(() => {
    const byFile = new Map<string, { line?: number; text?: string }[]>();
    for (const m of display.matches) {
      const list = byFile.get(m.file) ?? [];
      if (m.line !== undefined || m.text !== undefined) list.push(m);
      byFile.set(m.file, list);
    }
    return [...byFile.entries()];
  }, [display.matches]);
  if (!groups.length) return <p className="empty-note">No matches for “{display.query}”.</p>;
  return (
    <div className="search-results">
      {groups.map(([file, matches]) => (
        <section key={file} className="search-file" role="group" aria-label={file}>
          <div className="search-file-name">
            <Icon name="file" size={12} /> <FilePath path={file} />
            {matches.length && matches[0]!.line !== undefined ? <span className="file-meta">{matches.length}</span> : null}
            {matches.length && matches[0]!.line === undefined && matches[0]!.text ? <span className="file-meta">{matches[0]!.text}</span> : null}
          </div>
          {matches.some((m) => m.line !== undefined) ? (
            <table className="code-table">
              <tbody>
                {matches.map((m, i) => (
                  <tr key={i}>
                    <td className="code-no">{m.line}</td>
                    <td className="code-text">{highlightMatch(m.text ?? '', display.query)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </section>
      ))}
      {display.total !== undefined && display.total > display.matches.length ? (
        <p className="empty-note">
          Showing {display.matches.length.toLocaleString()} of {display.total.toLocaleString()}.
        </p>
      ) : null}
    </div>
  );
}

/** Glob's files. */
export function FileListView({ display }: { display: Of<'file_list'> }) {
  if (!display.files.length) return <p className="empty-note">No files.</p>;
  return (
    <div>
      <ul className="file-list">
        {display.files.map((f) => (
          <li key={f}>
            <Icon name="file" size={12} /> <FilePath path={f} />
          </li>
        ))}
      </ul>
      {display.total !== undefined && display.total > display.files.length ? (
        <p className="empty-note">
          {display.files.length} most recently modified of {display.total.toLocaleString()}.
        </p>
      ) : null}
    </div>
  );
}

/** An image the model looked at. */
export function ImageView({ display }: { display: Of<'image'> }) {
  return (
    <figure className="image-view">
      <img src={display.dataUrl} alt={`Image ${display.path}`} />
      <figcaption>
        <span className="file-path">{display.path}</span> <span className="file-meta">{display.caption ?? `${display.width}×${display.height}`}</span>
      </figcaption>
    </figure>
  );
}

const OPERATION: Record<InputOf<'file_io'>['operation'], string> = { read: 'Read', write: 'Write', edit: 'Edit', glob: 'List', grep: 'Search', media: 'View' };

/** A file operation about to run (or awaiting approval). */
export function FileIoView({ display }: { display: InputOf<'file_io'> }) {
  return (
    <div className="file-io">
      <div className="file-view-header">
        <span className="file-op">{OPERATION[display.operation]}</span>
        <FilePath path={display.path} className="file-path" />
        {display.detail ? <span className="file-meta">{display.detail}</span> : null}
      </div>
      {display.content ? <pre className="tool-output">{display.content}</pre> : null}
    </div>
  );
}

export function SearchInputView({ display }: { display: InputOf<'search'> }) {
  return (
    <div className="file-view-header">
      <span className="file-op">Search</span>
      <code className="search-query">{display.query}</code>
      {display.scope ? <span className="file-meta">in {display.scope}</span> : null}
    </div>
  );
}
