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
}) {
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
      {icon ? <Icon name={icon} size={14} /> : null} {label}
      <kbd className="key-hint" aria-hidden="true">
        {keyLabel(answer.key)}
      </kbd>
    </button>
  );
}
