import { type RefObject, useEffect, useMemo, useRef, useState } from 'react';
import { CodeLine } from './highlight';
import { countChanges, hunksOf } from '../../stores/changes';
import { type DiffDisplay, type DiffLine, diffRows, splitRows } from './diff-model';
import { withWordChanges } from './word-diff';

type Mode = 'unified' | 'split';
const MODE_KEY = 'deft-diff-mode';
/** Rows shown before "Show all". */
const PREVIEW_ROWS = 300;
/** Split view by default once the diff has this much room… */
const SPLIT_AUTO_WIDTH = 960;
/** …and at all only with this much (each side then still shows about 45 characters of code). */
const SPLIT_MIN_WIDTH = 720;

function storedMode(): Mode | null {
  const value = localStorage.getItem(MODE_KEY);
  return value === 'unified' || value === 'split' ? value : null;
}

/**
 * Follows the width the diff's own card has (not the window's): split when roomy unless the user picked
 * unified; the user's split where there is room for it; unified wherever the card is too narrow.
 */
function useMode(ref: RefObject<HTMLElement | null>): { mode: Mode; choose: (mode: Mode) => void; splitFits: boolean } {
  const [chosen, setChosen] = useState<Mode | null>(storedMode);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry?.contentRect.width ?? 0));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  const choose = (mode: Mode) => {
    localStorage.setItem(MODE_KEY, mode);
    setChosen(mode);
  };
  const splitFits = width >= SPLIT_MIN_WIDTH;
  const wanted = chosen ?? (width >= SPLIT_AUTO_WIDTH ? 'split' : 'unified');
  return { mode: wanted === 'split' && splitFits ? 'split' : 'unified', choose, splitFits };
}

export function DiffStats({ added, removed }: { added: number; removed: number }) {
  return (
    <span className="diff-stats" aria-label={`${added} lines added, ${removed} lines removed`}>
      <span className="diff-stat-add">+{added}</span> <span className="diff-stat-del">−{removed}</span>
    </span>
  );
}

const signClass = (line: DiffLine | undefined) => (line?.sign === '+' ? 'diff-add' : line?.sign === '-' ? 'diff-del' : line ? 'diff-ctx' : 'diff-empty');

/** A hunk header (`@@ … @@`) or a note such as "No newline at end of file", across the whole table. */
function MetaRow({ row }: { row: { kind: 'hunk'; header: string } | { kind: 'note'; text: string } }) {
  return (
    <tr className={row.kind === 'hunk' ? 'diff-hunk' : 'diff-note'}>
      <td colSpan={4}>{row.kind === 'hunk' ? row.header : row.text}</td>
    </tr>
  );
}

function Unified({ rows }: { rows: ReturnType<typeof diffRows> }) {
  return (
    <table className="diff-table diff-unified">
      <tbody>
        {rows.map((row, i) =>
          row.kind !== 'line' ? (
            <MetaRow key={i} row={row} />
          ) : (
            <tr key={i} className={signClass(row.line)}>
              <td className="diff-no">{row.line.oldNo ?? ''}</td>
              <td className="diff-no">{row.line.newNo ?? ''}</td>
              <td className="diff-sign">{row.line.sign === ' ' ? '' : row.line.sign === '-' ? '−' : '+'}</td>
              <td className="diff-code">
                <CodeLine segments={row.line.segments} />
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function Split({ rows }: { rows: ReturnType<typeof splitRows> }) {
  return (
    <table className="diff-table diff-split">
      {/* Fixed layout takes column widths from here (the first row may be a full-width hunk header). */}
      <colgroup>
        <col className="diff-col-no" />
        <col />
        <col className="diff-col-no" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((row, i) =>
          row.kind !== 'pair' ? (
            <MetaRow key={i} row={row} />
          ) : (
            <tr key={i}>
              <td className={`diff-no ${signClass(row.left)}`}>{row.left?.oldNo ?? ''}</td>
              <td className={`diff-code diff-side ${signClass(row.left)}`}>{row.left ? <CodeLine segments={row.left.segments} /> : null}</td>
              <td className={`diff-no ${signClass(row.right)}`}>{row.right?.newNo ?? ''}</td>
              <td className={`diff-code ${signClass(row.right)}`}>{row.right ? <CodeLine segments={row.right.segments} /> : null}</td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** A file diff: unified by default, side by side on wide windows, syntax highlighted, with +/− counts. */
export function DiffView({
  display,
  showPath = false,
  showStats = true,
}: {
  display: Pick<DiffDisplay, 'path' | 'before' | 'after' | 'hunks' | 'added' | 'removed' | 'omitted' | 'truncated'>;
  showPath?: boolean;
  /** False where the +/− counts are already in view (a tool card's title). */
  showStats?: boolean;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const { mode, choose: setMode, splitFits } = useMode(ref);
  const [all, setAll] = useState(false);
  const hunks = useMemo(() => hunksOf(display), [display]);
  const rows = useMemo(() => withWordChanges(diffRows(display.path, hunks)), [display.path, hunks]);
  const counts = display.added !== undefined && display.removed !== undefined ? { added: display.added, removed: display.removed } : countChanges(hunks);
  const shown = all ? rows : rows.slice(0, PREVIEW_ROWS);
  const isNew = hunks.length === 1 && hunks[0]!.oldStart === 0 && hunks[0]!.oldLines === 0;
  return (
    <div className="diff" ref={ref}>
      <div className="diff-header">
        {showPath ? <span className="diff-path">{display.path}</span> : null}
        {isNew ? <span className="diff-badge">new file</span> : null}
        {showStats ? <DiffStats {...counts} /> : null}
        <span className="diff-spacer" />
        <div className="segmented" role="group" aria-label="Diff layout">
          {(['unified', 'split'] as const).map((m) => (
            <button
              key={m}
              type="button"
              aria-pressed={mode === m}
              disabled={m === 'split' && !splitFits}
              title={m === 'split' && !splitFits ? 'Side by side needs a wider card: widen the window or hide the sidebar (Ctrl+B)' : undefined}
              onClick={() => setMode(m)}
            >
              {m === 'unified' ? 'Unified' : 'Split'}
            </button>
          ))}
        </div>
      </div>
      {hunks.length ? (
        <div className="diff-body">{mode === 'split' ? <Split rows={splitRows(shown)} /> : <Unified rows={shown} />}</div>
      ) : (
        <p className="diff-empty-note">No changes.</p>
      )}
      {rows.length > shown.length ? (
        <button type="button" className="link-button" onClick={() => setAll(true)}>
          Show all {rows.length.toLocaleString()} lines
        </button>
      ) : null}
      {display.truncated ? (
        <p className="diff-empty-note">The change is too large to show in full; {counts.added + counts.removed} lines changed in total.</p>
      ) : null}
    </div>
  );
}
