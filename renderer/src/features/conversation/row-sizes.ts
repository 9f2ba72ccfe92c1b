import type { Virtualizer } from '@tanstack/react-virtual';

/**
 * The virtualizer remembers the measured height of every row key it has seen and never forgets one. Rows
 * leave the transcript (a long live session lets go of its earliest turns, a retry notice is replaced), so
 * over a long session its cache would grow by every row ever shown. Forget the heights of rows no longer in
 * the transcript; the rows shown keep theirs. A row that comes back (an earlier page scrolled into view) is
 * measured again, as after opening the session.
 */
export function forgetRowsGone(virtualizer: Pick<Virtualizer<HTMLDivElement, Element>, 'itemSizeCache'>, items: ReadonlyArray<{ id: string }>): void {
  const sizes = virtualizer.itemSizeCache;
  // Each shown row has at most one height: a larger cache holds rows gone (the check costs nothing per render).
  if (sizes.size <= items.length) return;
  const shown = new Set(items.map((i) => i.id));
  for (const key of sizes.keys()) if (typeof key !== 'string' || !shown.has(key)) sizes.delete(key);
}
