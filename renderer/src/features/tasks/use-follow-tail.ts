import { type RefObject, type UIEvent, useLayoutEffect, useRef } from 'react';

/** How near the end (px) still counts as "at the end". */
const NEAR_END = 24;

/**
 * Output that follows its end while the reader is there, like a terminal: each new `text` scrolls
 * the element to its end unless the reader scrolled up; scrolling back down follows again.
 */
export function useFollowTail<T extends HTMLElement>(text: string): { ref: RefObject<T | null>; onScroll: (e: UIEvent<T>) => void } {
  const ref = useRef<T>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [text]);
  const onScroll = (e: UIEvent<T>) => {
    const el = e.currentTarget;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_END;
  };
  return { ref, onScroll };
}
