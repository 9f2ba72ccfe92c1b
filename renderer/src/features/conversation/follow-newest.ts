import { type RefObject, useCallback, useEffect, useRef, useState } from 'react';

/** How close to the end (px) still counts as being at the end. */
const NEAR_END = 48;

/**
 * Follow the newest while the reader is at the end of a scroll box. The pin runs when the content's
 * height changed (`onContentResized`, from the virtualizer, which measures rows in a ResizeObserver
 * callback: after layout, before paint, so the view moves in the frame that showed the new text) or the
 * box was laid out anew (its own ResizeObserver). A streamed delta forces no layout of its own: the one
 * the pin reads is the one the measured rows need before paint anyway.
 *
 * Whether the reader left the end is decided by scrolling *up*. Scroll events are dispatched a frame
 * after the scroll that caused them: one from before a pin was asked for (a dialog giving focus back
 * to a button further up, the content growing between the pin and its event) would otherwise be read
 * against the new layout and turn following off before the observer pins — that is what left the
 * view at the top after a rewind when following first moved to a ResizeObserver.
 */
export function useFollowNewest(scrollRef: RefObject<HTMLElement | null>) {
  const following = useRef(true);
  // Where the box was last seen scrolled to, or put by the pin: moving on from there is not leaving.
  const lastTop = useRef(0);
  // The content's height last told: a scroll tells the same height again, and must not pin.
  const contentHeight = useRef(-1);
  const [away, setAway] = useState(false);

  const pin = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    lastTop.current = el.scrollHeight - el.clientHeight;
  }, [scrollRef]);

  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      if (following.current) pin();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [pin, scrollRef]);

  /** The content's height is now `height` (px): pinned to the end again if it changed while following. */
  const onContentResized = useCallback(
    (height: number) => {
      if (height === contentHeight.current) return;
      contentHeight.current = height;
      if (following.current) pin();
    },
    [pin],
  );

  /** Follow from now on, and go to the end at once (one layout: for a jump or a rewind, not per update). */
  const follow = useCallback(() => {
    following.current = true;
    setAway(false);
    pin();
  }, [pin]);

  const onScroll = (el: HTMLElement) => {
    const top = el.scrollTop;
    const up = top < lastTop.current - 1;
    lastTop.current = top;
    if (following.current && !up) return;
    const distance = el.scrollHeight - top - el.clientHeight;
    following.current = distance < NEAR_END;
    // The pill shows once the latest is well out of sight.
    setAway(distance > Math.max(200, el.clientHeight / 2));
  };

  return { following, away, follow, onScroll, onContentResized };
}
