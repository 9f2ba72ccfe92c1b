import { Icon } from '../../components/Icon';
import { type KeyAnswer, keyLabel } from './approval-keys';

/** A button with its single-key answer shown beside the label. */
export function KeyButton({
  answer,
  label,
  className,
  disabled,
  title,
  icon,
  buttonRef,
  expanded,
  scope,
}: {
  answer: KeyAnswer;
  label: string;
  className?: string;
  disabled: boolean;
  title?: string;
  icon?: 'check' | 'x';
  buttonRef?: React.Ref<HTMLButtonElement>;
  /** For a button that opens something (Always allow's rule editor). */
  expanded?: boolean;
  /** The part of the label that names a host or rule: it is what shortens when the answers do not fit. */
  scope?: string | null;
}) {
  const at = scope ? label.indexOf(scope) : -1;
  return (
    <button
      ref={buttonRef}
      type="button"
      className={`button ${className ?? ''}`}
      disabled={disabled}
      title={title}
      aria-keyshortcuts={answer.key === 'A' ? 'Shift+A' : answer.key}
      aria-expanded={expanded}
      onClick={answer.run}
    >
      {icon ? <Icon name={icon} size={14} /> : null}
      {at < 0 || !scope ? (
        <span className="key-button-label">{label}</span>
      ) : (
        <span className="key-button-label key-button-scoped">
          {/* The spaces stay in the text: the button's name, and (white-space: pre) the gaps between the words. */}
          {label.slice(0, at).trim() ? <span>{label.slice(0, at)}</span> : null}
          <span className="key-button-scope">{scope}</span>
          {label.slice(at + scope.length).trim() ? <span>{label.slice(at + scope.length)}</span> : null}
        </span>
      )}
      <kbd className="key-hint" aria-hidden="true">
        {keyLabel(answer.key)}
      </kbd>
    </button>
  );
}
