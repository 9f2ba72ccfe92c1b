import { Virtualizer, type VirtualizerOptions } from '@tanstack/react-virtual';
import { describe, expect, it } from 'vitest';
import { forgetRowsGone } from './row-sizes';

const rowsOf = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => ({ id: `row-${from + i}` }));

/** The conversation's virtualizer over `items`, without a DOM (sizes come from resizeItem, as measureElement would give them). */
function options(items: ReadonlyArray<{ id: string }>): VirtualizerOptions<HTMLDivElement, Element> {
  return {
    count: items.length,
    getScrollElement: () => null,
    estimateSize: () => 50,
    getItemKey: (index) => items[index]!.id,
    scrollToFn: () => {},
    observeElementRect: () => {},
    observeElementOffset: () => {},
  };
}

describe('the conversation virtualizer’s measured heights', () => {
  it('are forgotten for rows that left the transcript, and kept for the rows shown', () => {
    let items = rowsOf(0, 300);
    const virtualizer = new Virtualizer(options(items));
    virtualizer.getTotalSize();
    for (let i = 0; i < items.length; i++) virtualizer.resizeItem(i, 100 + (i % 7));
    expect(virtualizer.itemSizeCache.size).toBe(300);

    // The window lets go of its earliest rows, as letGoOfEarlierTurns does.
    items = items.slice(200);
    virtualizer.setOptions(options(items));
    forgetRowsGone(virtualizer, items);

    expect([...virtualizer.itemSizeCache.keys()]).toEqual(items.map((i) => i.id));
    // The rows shown are laid out with their measured heights, not estimates.
    const measured = items.reduce((sum, _, k) => sum + 100 + ((200 + k) % 7), 0);
    expect(virtualizer.getTotalSize()).toBe(measured);
  });

  it('stays bounded over a long session that keeps letting go of rows', () => {
    let items = rowsOf(0, 0);
    const virtualizer = new Virtualizer(options(items));
    for (let n = 0; n < 1_000; n += 10) {
      items = [...items, ...rowsOf(n, n + 10)];
      if (items.length > 60) items = items.slice(-40);
      virtualizer.setOptions(options(items));
      virtualizer.getTotalSize();
      for (let i = items.length - 10; i < items.length; i++) virtualizer.resizeItem(i, 80);
      forgetRowsGone(virtualizer, items);
      expect(virtualizer.itemSizeCache.size).toBeLessThanOrEqual(items.length);
    }
  });

  it('leaves the cache alone while every row in it is still shown', () => {
    const items = rowsOf(0, 10);
    const virtualizer = new Virtualizer(options(items));
    virtualizer.getTotalSize();
    virtualizer.resizeItem(3, 120);
    forgetRowsGone(virtualizer, items);
    expect([...virtualizer.itemSizeCache]).toEqual([['row-3', 120]]);
  });
});
