import { useState } from 'react';
import { Icon, type IconName } from '../../components/Icon';
import { copyText } from '../../actions/messages';

/** "14:02", or "Mar 3, 14:02" on another day; the full date and time as its title. */
export function Timestamp({ at }: { at: number }) {
  const date = new Date(at);
  const today = new Date().toDateString() === date.toDateString();
  const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return (
    <time className="message-time" dateTime={date.toISOString()} title={date.toLocaleString()}>
      {today ? time : `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`}
    </time>
  );
}

/** A small toolbar button: an icon with its name (shown to screen readers, and as a tooltip). */
export function ToolbarButton({
  icon,
  label,
  title,
  disabled,
  onClick,
}: {
  icon: IconName;
  label: string;
  title?: string;
  disabled?: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" className="toolbar-button" aria-label={label} title={title ?? label} disabled={disabled} onClick={onClick}>
      <Icon name={icon} size={14} />
    </button>
  );
}

/** Copy, with a moment of "Copied" (or why it could not). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () =>
    void copyText(text).then((ok) => {
      setState(ok ? 'copied' : 'failed');
      setTimeout(() => setState('idle'), 1500);
    });
  return (
    <>
      <ToolbarButton
        icon={state === 'copied' ? 'check' : 'copy'}
        label={label}
        title={state === 'failed' ? 'The browser did not allow copying' : label}
        onClick={copy}
      />
      {state !== 'idle' ? (
        <span className="visually-hidden" role="status">
          {state === 'copied' ? 'Copied' : 'Could not copy'}
        </span>
      ) : null}
    </>
  );
}
