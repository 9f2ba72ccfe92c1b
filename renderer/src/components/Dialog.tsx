import { type ReactNode, useEffect, useId, useRef } from 'react';

const FOCUSABLE = 'input, select, textarea, button';
/** Open dialogs (set up by their effect) and the control each focuses first. */
const open = new Map<HTMLElement, HTMLElement | null>();

/** The open modal painted on top: the last in document order (they share one z-index). */
function topDialog(): HTMLElement | null {
  return [...document.querySelectorAll<HTMLElement>('[role="dialog"][aria-modal="true"]')].filter((el) => open.has(el)).at(-1) ?? null;
}

/** A modal dialog: labelled, traps focus on open, closes on Escape and (unless `closeOnBackdrop` is false) on a click outside. */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  wide,
  className,
  closeOnBackdrop = true,
  initialFocus,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  /** Extra class names for the dialog box (its size, its layout). */
  className?: string;
  closeOnBackdrop?: boolean;
  /** Selector of the element to focus first (default: the first control, which is the Close button). */
  initialFocus?: string;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const self = ref.current!;
    const previous = document.activeElement as HTMLElement | null;
    const first = (initialFocus ? self.querySelector<HTMLElement>(initialFocus) : null) ?? self.querySelector<HTMLElement>(FOCUSABLE);
    open.set(self, first);
    // Only the dialog on top takes focus and keys: one that opens beneath another (a question while
    // Settings is open) waits its turn, and one Escape closes one dialog.
    if (topDialog() === self) first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (topDialog() !== self) return;
      if (e.key === 'Escape') {
        // Immediate: the dialog beneath listens on the same node, and once this one has closed it is on top.
        e.stopImmediatePropagation();
        close.current();
      }
      if (e.key === 'Tab' && ref.current) {
        const focusable = [...ref.current.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href]')].filter((el) => !el.hasAttribute('disabled'));
        if (!focusable.length) return;
        const firstEl = focusable[0]!;
        const lastEl = focusable[focusable.length - 1]!;
        if (e.shiftKey && document.activeElement === firstEl) {
          e.preventDefault();
          lastEl.focus();
        } else if (!e.shiftKey && document.activeElement === lastEl) {
          e.preventDefault();
          firstEl.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      open.delete(self);
      const below = topDialog();
      // Focus goes back without scrolling: the control that opened the dialog may sit far up a conversation
      // that has since moved on (a rewind brings its notice into view at the end).
      if (below && !(previous && below.contains(previous))) (open.get(below)?.isConnected ? open.get(below) : below.querySelector<HTMLElement>(FOCUSABLE))?.focus({ preventScroll: true });
      else if (previous?.isConnected) previous.focus({ preventScroll: true });
      else window.dispatchEvent(new Event('deft:focus-composer'));
    };
    // Focus once, on open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <div className="dialog-backdrop" onMouseDown={(e) => closeOnBackdrop && e.target === e.currentTarget && onClose()}>
      <div className={`dialog${wide ? ' dialog-wide' : ''}${className ? ` ${className}` : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} ref={ref}>
        <header className="dialog-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </header>
        {/* Focusable, so a body that scrolls can be scrolled from the keyboard. */}
        <div className="dialog-body" tabIndex={0}>
          {children}
        </div>
        {footer ? <footer className="dialog-footer">{footer}</footer> : null}
      </div>
    </div>
  );
}
