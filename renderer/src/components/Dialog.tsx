import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'input, select, textarea, button';
/** Open dialogs (set up by their effect): the control each focuses first, and where it stacks (higher: on top). */
const open = new Map<HTMLElement, { first: HTMLElement | null; rank: number }>();
let opened = 0;

/** The open modal on top: the highest rank (the one opened last, unless it opened beneath the others). */
function topDialog(): HTMLElement | null {
  let top: HTMLElement | null = null;
  for (const [el, { rank }] of open) if (!top || rank > open.get(top)!.rank) top = el;
  return top;
}

/**
 * A modal dialog: labelled, traps focus on open, closes on Escape and (unless `closeOnBackdrop` is false) on a click outside.
 * Drawn at page level (a portal into <body>) wherever it is opened from: inside a transcript row (a transform, a
 * virtualised list) a fixed backdrop would be confined to the row and later rows would paint over it.
 */
export function Dialog({
  title,
  onClose,
  children,
  footer,
  wide,
  className,
  closeOnBackdrop = true,
  initialFocus,
  beneathOpen = false,
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
  /** Opens beneath the dialogs already open (a question arriving while the user is in Settings waits its turn). */
  beneathOpen?: boolean;
}) {
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  // Decided at first render, parents before children: a dialog opened from another goes over it.
  const [{ rank, beneath }] = useState(() => {
    const under = beneathOpen && open.size > 0;
    return { beneath: under, rank: under ? Math.min(...[...open.values()].map((d) => d.rank)) - 1 : ++opened };
  });
  useEffect(() => {
    const self = ref.current!;
    const previous = document.activeElement as HTMLElement | null;
    const first = (initialFocus ? self.querySelector<HTMLElement>(initialFocus) : null) ?? self.querySelector<HTMLElement>(FOCUSABLE);
    open.set(self, { first, rank });
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
        const focusable = [...ref.current.querySelectorAll<HTMLElement>('input, select, textarea, button, a[href]')].filter(
          (el) => !el.hasAttribute('disabled'),
        );
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
      if (below && !(previous && below.contains(previous)))
        (open.get(below)?.first?.isConnected ? open.get(below)!.first : below.querySelector<HTMLElement>(FOCUSABLE))?.focus({ preventScroll: true });
      else if (previous?.isConnected) previous.focus({ preventScroll: true });
      else window.dispatchEvent(new Event('deft:focus-composer'));
    };
    // Focus once, on open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return createPortal(
    <div
      className="dialog-backdrop"
      style={beneath ? { zIndex: 9 } : undefined}
      onMouseDown={(e) => closeOnBackdrop && e.target === e.currentTarget && onClose()}
    >
      <div
        className={`dialog${wide ? ' dialog-wide' : ''}${className ? ` ${className}` : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        ref={ref}
      >
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
    </div>,
    document.body,
  );
}
