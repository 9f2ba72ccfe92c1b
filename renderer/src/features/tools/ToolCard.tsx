import { memo, useState } from 'react';
import { useSettings } from '../../stores/settings';
import type { ToolItem } from '../../stores/transcript';
import { FilePath } from '../files/FilePath';
import { HookBadge } from '../hooks/HookBadge';
import { headline } from './headline';
import { cardRenderers, opensByDefault, renderInput, renderResult, renderSummary, resultSupersedesInput, toolIcons } from './registry';
import { ToolHeader } from './ToolHeader';
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
  const subjectText = `${title.before}${title.path ?? ''}${title.after}`;
  return (
    <section className={`tool-card tool-${item.status}`} role="group" aria-label={`${item.name} tool call`}>
      <ToolHeader
        item={item}
        icon={toolIcons[item.display.kind] ?? 'tool'}
        tool={title.verb}
        subject={
          <>
            {title.before}
            {title.path ? <FilePath path={title.path} /> : null}
            {title.after}
          </>
        }
        subjectText={subjectText}
        meta={summary}
        expanded={expanded}
        onToggle={() => setOpen(!expanded)}
      />
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
