import { memo, useState } from 'react';
import { formatDuration } from '#protocol/helpers/units';
import { Icon, Spinner } from '../../components/Icon';
import { useSettings } from '../../stores/settings';
import type { ToolItem } from '../../stores/transcript';
import { FilePath } from '../files/FilePath';
import { HookBadge } from '../hooks/HookBadge';
import { headline } from './headline';
import { cardRenderers, opensByDefault, renderInput, renderResult, renderSummary, resultSupersedesInput, toolIcons } from './registry';
import './tools.css';

/** The plan file a Write or Edit changed (plans live in ~/.deft/plans/), or null. */
function isPlanWrite(item: ToolItem, home: string | undefined): string | null {
  if (!home || (item.name !== 'Write' && item.name !== 'Edit')) return null;
  const path = item.display.kind === 'diff' || item.display.kind === 'file_io' ? item.display.path : null;
  return path && path.startsWith(`${home}/plans/`) && path.endsWith('.md') ? path : null;
}

/**
 * A tool call: what it does, live progress while it runs, and its result. Errors start open. The title
 * says each thing once ("Read src/money.js · L1–15"); its file path opens the file in the viewer, and
 * a click anywhere else on the title opens or closes the card.
 */
export const ToolCard = memo(function ToolCard({ item }: { item: ToolItem }) {
  const [open, setOpen] = useState<boolean | null>(null);
  const home = useSettings((s) => s.workspace?.home);
  // The plan file's writes are part of the plan review, which shows the plan: here they stay one line.
  const planWrite = isPlanWrite(item, home);
  const expanded = open ?? (item.status === 'error' || (!planWrite && opensByDefault(item.result?.display)));
  const summary = renderSummary(item.result?.display ?? item.display);
  const Custom = cardRenderers[item.display.kind];
  if (Custom) return <Custom item={item} />;
  const title = planWrite ? { verb: null, before: 'Updated the plan ', path: planWrite, after: '' } : headline(item);
  const toggle = () => setOpen(!expanded);
  return (
    <section className={`tool-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <div className="tool-header" onClick={toggle}>
        <button
          type="button"
          className="tool-toggle"
          aria-expanded={expanded}
          aria-label={`${title.verb ? `${title.verb} ` : ''}${title.before}${title.path ?? ''}${title.after}`}
          onClick={(e) => {
            e.stopPropagation();
            toggle();
          }}
        >
          <Icon name="chevron" size={12} className={`chevron${expanded ? ' chevron-open' : ''}`} />
          <Icon name={toolIcons[item.display.kind] ?? 'tool'} size={14} />
          {title.verb ? <span className="tool-name">{title.verb}</span> : null}
        </button>
        <span className="tool-description">
          {title.before}
          {title.path ? <FilePath path={title.path} /> : null}
          {title.after}
        </span>
        {summary ? <span className="tool-summary">{summary}</span> : null}
        <span className="tool-status">
          {item.status === 'running' ? <Spinner size={12} /> : null}
          {item.status === 'done' ? <Icon name="check" size={14} className="ok" /> : null}
          {item.status === 'error' ? <Icon name="x" size={14} className="bad" /> : null}
          {item.result ? <span className="tool-duration">{formatDuration(item.result.durationMs)}</span> : null}
        </span>
      </div>
      {expanded || item.status === 'running' ? (
        <div className="tool-body">
          {resultSupersedesInput(item.result?.display) ? null : renderInput(item.display)}
          {item.status === 'running' && item.progress ? <pre className="tool-output tool-live">{item.progress}</pre> : null}
          {item.result && expanded ? renderResult(item.result.display, item.result.output) : null}
        </div>
      ) : null}
      <HookBadge hooks={item.hooks} />
    </section>
  );
});
