import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Icon } from '../../components/Icon';

export interface MenuAction {
  label: string;
  run(): void;
  /** Needs a second click, on "Confirm <label>", before it runs. */
  confirm?: boolean;
  danger?: boolean;
}

/**
 * A "⋯" button and the menu it opens: arrow keys move, Enter runs, Escape or a click elsewhere closes
 * and gives the focus back to the button. The menu is placed in the window (never clipped by the list).
 */
export function SessionMenu({ label, actions }: { label: string; actions: MenuAction[] }) {
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [place, setPlace] = useState<{ top: number; left: number } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);

  const close = (refocus: boolean) => {
    setOpen(false);
    setConfirming(null);
    if (refocus) button.current?.focus();
  };

  useLayoutEffect(() => {
    if (!open || !button.current) return;
    const box = button.current.getBoundingClientRect();
    const height = menu.current?.offsetHeight ?? 160;
    const width = menu.current?.offsetWidth ?? 220;
    const below = box.bottom + 4 + height <= window.innerHeight;
    setPlace({
      top: below ? box.bottom + 4 : Math.max(8, box.top - 4 - height),
      left: Math.max(8, Math.min(box.right - width, window.innerWidth - width - 8)),
    });
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) close(false);
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [open]);

  const onKeyDown = (e: KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    const move: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 };
    if (e.key in move) {
      e.preventDefault();
      items[(move[e.key]! + items.length) % items.length]?.focus();
    } else if (e.key === 'Escape' || e.key === 'Tab') {
      e.preventDefault();
      e.stopPropagation();
      close(true);
    }
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        className={`icon-button session-actions${open ? ' session-actions-open' : ''}`}
        aria-label={`Actions for ${label}`}
        aria-haspopup="menu"
        aria-expanded={open}
        title="Rename, fork, export or delete"
        onClick={() => (open ? close(false) : setOpen(true))}
      >
        <Icon name="more" size={16} />
      </button>
      {open ? (
        <ul ref={menu} className="session-menu" role="menu" aria-label={`Actions for ${label}`} style={place ?? { visibility: 'hidden' }} onKeyDown={onKeyDown}>
          {actions.map((action) => {
            const asking = confirming === action.label;
            return (
              <li key={action.label} role="none">
                <button
                  type="button"
                  role="menuitem"
                  className={`session-menu-item${action.danger ? ' danger' : ''}`}
                  onClick={() => {
                    if (action.confirm && !asking) {
                      setConfirming(action.label);
                      return;
                    }
                    close(!action.confirm);
                    action.run();
                  }}
                >
                  {asking ? `Confirm ${action.label.toLowerCase()}` : action.label}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </>
  );
}
