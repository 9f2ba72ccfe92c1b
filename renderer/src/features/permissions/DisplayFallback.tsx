import type { ToolInputDisplay } from '#protocol';
import { hunksOf } from '../../stores/changes';

/** A unified diff of a change's hunks, used when no renderer for `diff` is registered. */
export function PlainDiff({ display }: { display: Extract<ToolInputDisplay, { kind: 'diff' }> }) {
  const path = display.path;
  const lines = hunksOf(display).flatMap((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]);
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
      return <PlainDiff display={display} />;
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
