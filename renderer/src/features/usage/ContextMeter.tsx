import { useEffect, useRef, useState } from 'react';
import { useMeter } from '../../stores/meter';
import { formatTokens } from '#protocol/helpers/units';
import './usage.css';

const SOURCES = [
  { key: 'system', label: 'System prompt' },
  { key: 'instructions', label: 'Instruction files' },
  { key: 'tools', label: 'Tools' },
  { key: 'conversation', label: 'Conversation' },
  { key: 'toolResults', label: 'Tool results' },
] as const;

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 100) : 0);

/**
 * How full the context is (tokens against the window), with the point where Deft compacts marked.
 * A click opens what fills it, by source.
 */
export function ContextMeter() {
  const context = useMeter((s) => s.context);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        setOpen(false);
        ref.current?.querySelector<HTMLElement>('button')?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    ref.current?.addEventListener('keydown', onKey);
    const el = ref.current;
    return () => {
      document.removeEventListener('mousedown', onDown);
      el?.removeEventListener('keydown', onKey);
    };
  }, [open]);
  if (!context || !context.contextWindow) return null;
  const used = percent(context.tokens, context.contextWindow);
  const level = context.tokens >= context.contextWindow * context.compactAt ? 'full' : used >= 70 ? 'high' : 'ok';
  const label = `Context: ${formatTokens(context.tokens)} of ${formatTokens(context.contextWindow)} tokens (${used}%)`;
  return (
    <div className="context-meter" ref={ref}>
      <button
        type="button"
        className={`context-meter-button context-${level}`}
        aria-label={label}
        aria-expanded={open}
        title={`${label}; compacts at ${Math.round(context.compactAt * 100)}%`}
        onClick={() => setOpen(!open)}
      >
        <span className="meter-track" aria-hidden="true">
          <span className="meter-fill" style={{ width: `${Math.min(100, used)}%` }} />
          <span className="meter-mark" style={{ left: `${context.compactAt * 100}%` }} />
        </span>
        <span className="meter-text">{used}%</span>
      </button>
      {open ? (
        <div className="context-popover" role="group" aria-label="What fills the context">
          <p className="popover-title">
            <strong>{context.tokens.toLocaleString('en-US')}</strong> of {context.contextWindow.toLocaleString('en-US')} tokens ({used}%)
          </p>
          <p className="form-note">
            Deft compacts the conversation at {Math.round(context.compactAt * 100)}% (
            {Math.round(context.contextWindow * context.compactAt).toLocaleString('en-US')} tokens).
            {context.stale ? ' Measured before the last undo: the next answer measures it again.' : ''}
          </p>
          {context.breakdown ? (
            <table className="context-breakdown">
              <tbody>
                {SOURCES.map((source) => {
                  const tokens = context.breakdown![source.key];
                  if (tokens === undefined) return null;
                  return (
                    <tr key={source.key}>
                      <th scope="row">{source.label}</th>
                      <td className="breakdown-bar" aria-hidden="true">
                        <span style={{ width: `${percent(tokens, context.tokens)}%` }} />
                      </td>
                      <td className="breakdown-tokens">{formatTokens(tokens)}</td>
                      <td className="breakdown-share">{percent(tokens, context.tokens)}%</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : (
            <p className="form-note">Right after a compaction only the total is known; the next answer shows what fills it.</p>
          )}
          {context.breakdown ? <p className="form-note">By source: an estimate scaled to the provider&apos;s count.</p> : null}
        </div>
      ) : null}
    </div>
  );
}
