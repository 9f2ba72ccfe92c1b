import { Icon } from '../../components/Icon';
import { type KeyAnswer, keyLabel } from './approval-keys';

/** A button with its single-key answer shown beside the label. */
export function KeyButton({ answer, label, className, disabled, title, icon, buttonRef }: {
  answer: KeyAnswer;
  label: string;
  className?: string;
  disabled: boolean;
  title?: string;
  icon?: 'check' | 'x';
  buttonRef?: React.Ref<HTMLButtonElement>;
}) {
  return (
    <button ref={buttonRef} type="button" className={`button ${className ?? ''}`} disabled={disabled} title={title} aria-keyshortcuts={answer.key === 'A' ? 'Shift+A' : answer.key} onClick={answer.run}>
      {icon ? <Icon name={icon} size={14} /> : null} {label}
      <kbd className="key-hint" aria-hidden="true">
        {keyLabel(answer.key)}
      </kbd>
    </button>
  );
}
