import { type RefObject, useEffect } from 'react';

/**
 * Focuses `ref` when a panel appears (an approval, a plan review) and, when the panel goes away with
 * the focus in it, hands the focus to the composer instead of leaving it on the page body.
 */
export function useFocusWhileShown(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    ref.current?.focus();
    return () => {
      const active = document.activeElement;
      if (!active || active === document.body) window.dispatchEvent(new Event('deft:focus-composer'));
    };
    // Once, on appearing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
