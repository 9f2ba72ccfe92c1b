import { structuredPatch } from 'diff';
import type { ToolInputDisplay } from '../../../../protocol';

/** A unified diff of before/after, used when no renderer for `diff` is registered. */
export function PlainDiff({ path, before, after }: { path: string; before: string; after: string }) {
  const patch = structuredPatch(path, path, before, after, '', '', { context: 3 });
  const lines = patch.hunks.flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]);
  return (
    <pre className="plain-diff" aria-label={`Changes to ${path}`}>
      {lines.length === 0 ? <span className="diff-context">No changes.</span> : null}
      {lines.map((line, i) => (
        <span key={i} className={line.startsWith('@@') ? 'diff-hunk' : line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : 'diff-context'}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** What a call will do, for display kinds the tools registry has no renderer for. */
export function DisplayFallback({ display }: { display: ToolInputDisplay }) {
  switch (display.kind) {
    case 'diff':
      return <PlainDiff path={display.path} before={display.before} after={display.after} />;
    case 'file_io':
      return (
        <pre className="tool-detail">
          {display.operation} {display.path}
          {display.content ? `\n\n${display.content}` : ''}
        </pre>
      );
    case 'command':
      return <pre className="tool-command">$ {display.command}</pre>;
    case 'network':
      return <pre className="tool-detail">{`${display.host}:${display.port}${display.command ? `\nfrom: $ ${display.command}` : ''}`}</pre>;
    case 'url_fetch':
      return <pre className="tool-detail">{`${display.method ?? 'GET'} ${display.url}`}</pre>;
    case 'generic':
      return <pre className="tool-detail">{display.detail ?? display.summary}</pre>;
    default:
      return <pre className="tool-detail">{JSON.stringify(display, null, 2)}</pre>;
  }
}
