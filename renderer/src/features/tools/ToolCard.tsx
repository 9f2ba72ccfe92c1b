import { memo, useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import type { ToolItem } from '../../stores/transcript';
import { cardRenderers, opensByDefault, renderInput, renderResult, renderSummary, resultSupersedesInput, toolIcons } from './registry';

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/** A tool call: what it does, live progress while it runs, and its result. Errors start open. */
export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  const [open, setOpen] = useState<boolean | null>(null);
  const expanded = open ?? (item.status === 'error' || opensByDefault(item.result?.display));
  const summary = renderSummary(item.result?.display ?? item.display);
  const Custom = cardRenderers[item.display.kind];
  if (Custom) return <Custom item={item} />;
  return (
    <section className={`tool-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <button type="button" className="tool-header" aria-expanded={expanded} onClick={() => setOpen(!expanded)}>
        <Icon name="chevron" size={12} className={`chevron${expanded ? ' chevron-open' : ''}`} />
        <Icon name={toolIcons[item.display.kind] ?? 'tool'} size={14} />
        <span className="tool-name">{item.name}</span>
        <span className="tool-description">{item.description}</span>
        {summary ? <span className="tool-summary">{summary}</span> : null}
        <span className="tool-status">
          {item.status === 'running' ? <Spinner size={12} /> : null}
          {item.status === 'done' ? <Icon name="check" size={14} className="ok" /> : null}
          {item.status === 'error' ? <Icon name="x" size={14} className="bad" /> : null}
          {item.result ? <span className="tool-duration">{duration(item.result.durationMs)}</span> : null}
        </span>
      </button>
      {expanded || item.status === 'running' ? (
        <div className="tool-body">
          {resultSupersedesInput(item.result?.display) ? null : renderInput(item.display)}
          {item.status === 'running' && item.progress ? <pre className="tool-output tool-live">{item.progress}</pre> : null}
          {item.result && expanded ? renderResult(item.result.display, item.result.output) : null}
        </div>
      ) : null}
    </section>
  );
});
