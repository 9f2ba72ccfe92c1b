import { memo, useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { Markdown } from '../conversation/Markdown';
import type { CompactionItem } from '../../stores/history';
import { formatTokens } from '#protocol/helpers/units';
import './context.css';

const FEATURE_LABELS: Record<string, (n: number) => string> = {
  skills: (n) => (n === 1 ? '1 loaded skill' : `${n} loaded skills`),
  todo: () => 'the todo list',
  goal: () => 'the goal',
  'permissions.mode': () => 'the permission mode',
  plan: () => 'plan mode',
  'skills.listing': () => 'the skill listing',
  tasks: () => 'the running background tasks',
};

function keptSummary(item: CompactionItem): string {
  const parts: string[] = [];
  const kept = item.keptMessages ?? 0;
  parts.push(kept ? `your last ${kept === 1 ? 'message' : `${kept} messages`} (verbatim)` : 'none of your earlier messages');
  for (const r of item.reattached ?? []) parts.push(FEATURE_LABELS[r.feature]?.(r.count) ?? `${r.count} from ${r.feature}`);
  return `Deft now reads this handoff note, ${parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]}. The conversation above stays here for you; the model no longer reads it.`;
}

/** A compaction in the transcript: a spinner while the model writes its handoff note, then a collapsible notice with the note. */
export const CompactionCard = memo(function CompactionCard({ item }: { item: CompactionItem }) {
  const [open, setOpen] = useState(false);
  const how = item.trigger === 'auto' ? 'the context was nearly full' : 'you asked with /compact';
  if (item.status === 'running') {
    const share = item.contextWindow ? ` (${formatTokens(item.tokensBefore)} of ${formatTokens(item.contextWindow)} tokens)` : '';
    return (
      <div className="notice compaction-running" role="status">
        <Spinner size={12} />
        <span>
          Compacting the conversation{item.trigger === 'auto' ? `: the context is nearly full${share}` : ''}… Deft is writing itself a handoff note. Esc stops
          it.
        </span>
      </div>
    );
  }
  if (item.status !== 'compacted') {
    const text =
      item.status === 'cancelled' ? 'Compaction stopped. The conversation is unchanged.' : `Compaction failed: ${item.error?.message ?? 'unknown error.'}`;
    return (
      <div className="notice notice-warning" role="status">
        <Icon name="alert" size={14} />
        <span>{text}</span>
      </div>
    );
  }
  return (
    <section className="compaction" role="group" aria-label="Context compacted">
      <button type="button" className="tool-header" aria-expanded={open} onClick={() => setOpen(!open)}>
        <Icon name="chevron" size={12} className={`chevron${open ? ' chevron-open' : ''}`} />
        <Icon name="compress" size={14} className="compaction-icon" />
        <span className="compaction-title">Context compacted</span>
        <span className="compaction-size">
          ~{formatTokens(item.tokensBefore)} → ~{formatTokens(item.tokensAfter ?? 0)} tokens
        </span>
        <span className="tool-status">{open ? 'Hide note' : 'View note'}</span>
      </button>
      {open ? (
        <div className="tool-body compaction-body">
          <p className="compaction-kept">
            Compacted because {how}
            {item.instructions ? ` (focus: “${item.instructions}”)` : ''}. {keptSummary(item)}
          </p>
          <Markdown text={item.note ?? ''} />
        </div>
      ) : null}
    </section>
  );
});

/** Above a turn the model no longer reads. */
export function UndoneLabel() {
  return (
    <div className="undone-label" title="Removed from what the model reads (by /undo or a rewind). Files are restored only by a rewind of the code.">
      <Icon name="undo" size={12} /> Undone
    </div>
  );
}
