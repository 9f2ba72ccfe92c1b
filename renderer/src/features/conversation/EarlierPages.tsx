import type { Virtualizer } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from 'react';
import { loadEarlier } from '../../actions/sessions';
import { useSessions } from '../../stores/sessions';
import type { TranscriptItem } from '../../stores/transcript';

/** How close to the top (px) the earlier page is asked for, so it is usually there before the user reaches it. */
const NEAR_TOP = 600;

/**
 * A session opens at its tail; earlier turns load as the user scrolls up. When a page goes on top, the
 * rows that were on screen stay where they were. Returns what the scroll handler calls, and whether
 * the page before is loading.
 */
export function useEarlierPages(scrollRef: RefObject<HTMLDivElement | null>, items: TranscriptItem[], virtualizer: Virtualizer<HTMLDivElement, Element>) {
  const before = useSessions((s) => s.before);
  const [busy, setBusy] = useState(false);
  const [nearTop, setNearTop] = useState(false);
  const firstId = useRef(items[0]?.id);

  const load = useCallback(() => {
    if (useSessions.getState().before === null || busy) return;
    setBusy(true);
    void loadEarlier().finally(() => setBusy(false));
  }, [busy]);

  // Rows put on top: scroll down by their height, so what was on screen stays.
  useLayoutEffect(() => {
    const previous = firstId.current;
    firstId.current = items[0]?.id;
    const el = scrollRef.current;
    if (!el || previous === undefined || previous === items[0]?.id) return;
    const index = items.findIndex((i) => i.id === previous);
    const moved = index > 0 ? virtualizer.measurementsCache[index]?.start : undefined;
    if (moved) el.scrollTop += moved;
  }, [items, scrollRef, virtualizer]);

  // A tail shorter than the window (a tall screen, short turns): fill it.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && before !== null && el.scrollHeight <= el.clientHeight + NEAR_TOP) load();
  }, [before, items, load, scrollRef]);

  const onScroll = (el: HTMLElement) => {
    const top = el.scrollTop < NEAR_TOP;
    setNearTop(top);
    if (top && before !== null) load();
  };
  return { onScroll, more: before !== null, busy, nearTop, load };
}

/** At the top of a conversation with earlier turns: says a page is loading, or loads it (keyboard users). */
export function EarlierPagesButton({ more, busy, nearTop, load }: { more: boolean; busy: boolean; nearTop: boolean; load: () => void }) {
  if (!more || !nearTop) return null;
  return (
    <button type="button" className="load-earlier" onClick={load} disabled={busy} aria-live="polite">
      {busy ? 'Loading earlier messages…' : 'Load earlier messages'}
    </button>
  );
}
