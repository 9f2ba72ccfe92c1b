import { useEffect, useMemo, useRef } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { openInEditor } from '../../actions/files';
import { useViewer } from '../../stores/viewer';
import { CodeLine, highlightLines, languageFor } from './highlight';

/** Files longer than this show their first lines, highlighted; the rest on request is not needed for reading. */
const HIGHLIGHT_LIMIT = 5_000;

/**
 * The read-only file viewer: a pane at the window's right edge with the file's text, numbered and
 * highlighted. Esc or Close shuts it and gives the focus back; in the desktop app a workspace text
 * file can also be opened in the system's editor.
 */
export function FileViewer() {
  const open = useViewer((s) => s.open);
  const close = useViewer((s) => s.close);
  const heading = useRef<HTMLHeadingElement>(null);
  const previous = useRef<HTMLElement | null>(null);
  const path = open?.path;

  useEffect(() => {
    if (!path) return;
    previous.current ??= document.activeElement as HTMLElement | null;
    heading.current?.focus();
  }, [path]);
  useEffect(() => {
    if (!path) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('[role="dialog"][aria-modal="true"]')) {
        e.preventDefault();
        close();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [path, close]);
  useEffect(() => {
    if (path) return;
    const back = previous.current;
    previous.current = null;
    if (back?.isConnected) back.focus();
  }, [path]);

  const file = open?.file;
  const lines = useMemo(() => {
    if (!file) return [];
    // A final newline ends the last line; it does not start another.
    const text = file.content.endsWith('\n') ? file.content.slice(0, -1) : file.content;
    return highlightLines(text.split('\n').slice(0, HIGHLIGHT_LIMIT).join('\n'), languageFor(file.path));
  }, [file]);
  if (!open) return null;
  return (
    <aside className="file-viewer" aria-label="File viewer">
      <header className="file-viewer-header">
        <Icon name="file" size={15} />
        <h2 ref={heading} tabIndex={-1} title={open.path}>
          {open.path}
        </h2>
        <span className="file-viewer-badge">read-only</span>
        {file?.canOpenExternally ? (
          <button type="button" className="button button-small" onClick={() => void openInEditor(open.path)}>
            <Icon name="external" size={13} /> Open in editor
          </button>
        ) : null}
        <button type="button" className="icon-button" aria-label="Close file viewer" onClick={close}>
          <Icon name="x" size={16} />
        </button>
      </header>
      {open.error ? (
        <p className="form-error" role="alert">
          {open.error}
        </p>
      ) : !file ? (
        <p className="file-viewer-loading">
          <Spinner size={12} /> Opening…
        </p>
      ) : (
        <>
          <p className="file-viewer-meta">
            {file.totalLines.toLocaleString('en-US')} lines{file.truncated ? ` · showing the first ${lines.length.toLocaleString('en-US')}` : ''}
          </p>
          <div className="file-viewer-body" tabIndex={0} aria-label={`Contents of ${open.path}`}>
            <table className="code-table">
              <tbody>
                {lines.map((segments, i) => (
                  <tr key={i}>
                    <td className="code-no">{i + 1}</td>
                    <td className="code-text">
                      <CodeLine segments={segments} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </aside>
  );
}
