import type { ReactNode } from 'react';
import { formatDuration } from '#protocol/helpers/units';
import { Icon, type IconName, Spinner } from '../../components/Icon';
import type { ToolItem } from '../../stores/transcript';

export interface ToolHeaderProps {
  item: ToolItem;
  icon: IconName;
  /** What ran ("Bash", "Read", "github › create_issue"), or null when the main argument already says it. */
  tool: string | null;
  /** The main argument: the command, the path, the URL, the query. */
  subject: ReactNode;
  /** The subject as plain text, for the toggle's accessible name. */
  subjectText: string;
  /** A second line under the subject (a command's own description), or nothing. */
  subtitle?: string | undefined;
  /** Facts beside the subject (line counts, "sandboxed", HTTP status). */
  meta?: ReactNode;
  /**
   * How the call ended when the card has a better word than a mark ("exit 1", "stopped"). A failed card
   * says it once: with an outcome there is no separate failure mark.
   */
  outcome?: ReactNode;
  /** The call's own duration after the outcome; off when the meta already says how long (a sub-agent's elapsed time). */
  duration?: boolean;
  expanded: boolean;
  /** Opens or closes the body; without it the header cannot be toggled (nothing to show yet). */
  onToggle?: (() => void) | undefined;
  /** Controls after the header (an external link), outside the toggle. */
  trailing?: ReactNode;
}

/**
 * The one header every tool card uses: chevron and icon, the tool, its main argument (a subtitle
 * below when there is one), facts, then how it ended and how long it took. A click anywhere on the
 * header toggles the card; the toggle button carries the name and the expanded state.
 */
export function ToolHeader({
  item,
  icon,
  tool,
  subject,
  subjectText,
  subtitle,
  meta,
  outcome,
  duration = true,
  expanded,
  onToggle,
  trailing,
}: ToolHeaderProps) {
  const failed = item.status === 'error';
  const label = [tool, subjectText].filter(Boolean).join(' ');
  return (
    <div className={`tool-header${onToggle ? '' : ' tool-header-static'}`} onClick={onToggle}>
      <button
        type="button"
        className="tool-toggle"
        aria-expanded={expanded}
        aria-label={label}
        disabled={!onToggle}
        onClick={(e) => {
          e.stopPropagation();
          onToggle?.();
        }}
      >
        <Icon name="chevron" size={12} className={`chevron${expanded ? ' chevron-open' : ''}`} />
        <Icon name={icon} size={14} />
        {tool ? <span className="tool-name">{tool}</span> : null}
      </button>
      <span className="tool-main">
        <span className="tool-description">{subject}</span>
        {subtitle ? <span className="tool-subtitle">{subtitle}</span> : null}
      </span>
      {meta ? <span className="tool-summary">{meta}</span> : null}
      <span className="tool-status">
        {item.status === 'running' && !outcome ? <Spinner size={12} /> : null}
        {outcome ?? (failed ? <FailedMark /> : item.status === 'done' ? <Icon name="check" size={14} className="ok" /> : null)}
        {item.result && duration ? <span className="tool-duration">{formatDuration(item.result.durationMs)}</span> : null}
      </span>
      {trailing ? (
        <span className="tool-trailing" onClick={(e) => e.stopPropagation()}>
          {trailing}
        </span>
      ) : null}
    </div>
  );
}

function FailedMark() {
  return (
    <span className="tool-chip chip-bad">
      <Icon name="failed" size={12} /> failed
    </span>
  );
}
