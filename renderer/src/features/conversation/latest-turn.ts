import { type Range, defaultRangeExtractor } from '@tanstack/react-virtual';
import type { TranscriptItem } from '../../stores/transcript';

/** At most this many rows of the latest turn are kept rendered wherever the reader is (its prompt and what came last). */
export const LATEST_ROWS = 24;

/** Index of the latest prompt row (-1: none). */
export function latestPromptIndex(items: readonly TranscriptItem[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.kind === 'user') return i;
  return -1;
}

/**
 * The rows to render: those near the viewport, plus the latest turn's prompt and its newest rows wherever the reader
 * scrolled. The turn running now is then always in the page (and read out by the live log), never only after a jump.
 */
export function withLatestTurn(items: readonly TranscriptItem[]): (range: Range) => number[] {
  return (range) => {
    const near = defaultRangeExtractor(range);
    const prompt = latestPromptIndex(items);
    if (prompt < 0) return near;
    const rows = new Set(near);
    rows.add(prompt);
    for (let i = Math.max(prompt + 1, items.length - LATEST_ROWS + 1); i < items.length; i++) rows.add(i);
    return [...rows].sort((a, b) => a - b);
  };
}

/** Whether a prompt row is the user's own (typed, or a skill run): sending it brings the view to the newest. */
export const isOwnPrompt = (item: TranscriptItem | undefined) =>
  item?.kind === 'user' && (item.origin === undefined || item.origin === 'user' || item.origin === 'skill');
