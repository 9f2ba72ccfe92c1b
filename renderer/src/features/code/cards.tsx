import type { CodeDiagnostics, ToolResultDisplay } from '#protocol';
import { FilePath } from '../files/FilePath';
import './code.css';

type CodeResult = Extract<ToolResultDisplay, { kind: 'code_result' }>;

const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

/** Under a Write/Edit diff: the problems the language server says the change introduced. */
export function CodeProblems({ path, diagnostics }: { path: string; diagnostics: CodeDiagnostics }) {
  const count = diagnostics.problems.length + diagnostics.more;
  if (!count) {
    return (
      <p className="code-problems-clean" aria-label="Diagnostics">
        No new errors · {diagnostics.server}
      </p>
    );
  }
  const errors = diagnostics.problems.filter((p) => p.severity === 'error').length;
  const title = errors === diagnostics.problems.length ? plural(count, 'new error') : plural(count, 'new problem');
  return (
    <section className="code-problems" aria-label="Diagnostics">
      <div className="code-problems-head">
        {title} · {diagnostics.server}
      </div>
      <ul>
        {diagnostics.problems.map((p, i) => (
          <li key={i} className={`code-problem code-problem-${p.severity}`}>
            <FilePath path={path} label={`${p.line}:${p.column}`} className="code-problem-at" />
            <span className="code-problem-severity">{p.severity}</span>
            {p.code ? <code className="code-problem-code">{p.code}</code> : null}
            <span className="code-problem-message">{p.message}</span>
          </li>
        ))}
      </ul>
      {diagnostics.more ? <p className="empty-note">and {diagnostics.more.toLocaleString()} more</p> : null}
    </section>
  );
}

/** An LSP tool call's answer: locations to open, hover text, or problems. */
export function CodeResultView({ display }: { display: CodeResult }) {
  if (display.text !== undefined) return <pre className="tool-output code-hover">{display.text || 'Nothing to show.'}</pre>;
  if (display.problems) {
    if (!display.problems.length) return <p className="empty-note">No errors · {display.server}</p>;
    return (
      <ul className="code-locations" aria-label="Problems">
        {display.problems.map((p, i) => (
          <li key={i} className={`code-problem code-problem-${p.severity}`}>
            <FilePath path={p.path} label={`${p.path}:${p.line}:${p.column}`} className="code-problem-at" />
            {p.code ? <code className="code-problem-code">{p.code}</code> : null}
            <span className="code-problem-message">{p.message}</span>
          </li>
        ))}
      </ul>
    );
  }
  const locations = display.locations ?? [];
  if (!locations.length) return <p className="empty-note">Nothing found · {display.server}</p>;
  return (
    <ul className="code-locations" aria-label="Locations">
      {locations.map((l, i) => (
        <li key={i}>
          <FilePath path={l.path} label={`${l.path}:${l.line}:${l.column}`} className="code-location-at" />
          {l.label ? <code className="code-location-label">{l.label}</code> : null}
        </li>
      ))}
      {display.total !== undefined && display.total > locations.length ? (
        <li className="empty-note">and {(display.total - locations.length).toLocaleString()} more</li>
      ) : null}
    </ul>
  );
}

/** The card header's summary for an LSP answer. */
export function codeSummary(display: CodeResult): string {
  if (display.text !== undefined) return display.server;
  const n = display.total ?? display.problems?.length ?? display.locations?.length ?? 0;
  return `${plural(n, display.problems ? 'problem' : 'result')} · ${display.server}`;
}
