import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DiffView } from './DiffView';

// The diff view follows the width of its own card: a stand-in ResizeObserver reports the width a layout would.

let reportWidth: (width: number) => void = () => {};
class SizedObserver {
  constructor(private readonly callback: ResizeObserverCallback) {}
  observe(): void {
    reportWidth = (width) => act(() => this.callback([{ contentRect: { width } } as ResizeObserverEntry], this as unknown as ResizeObserver));
  }
  disconnect(): void {}
  unobserve(): void {}
}
afterEach(() => vi.unstubAllGlobals());

const hunk = {
  oldStart: 4,
  oldLines: 3,
  newStart: 4,
  newLines: 3,
  lines: [' export function format(cents) {', '-  return `$${cents / 100}`;', '+  return `$${(cents / 100).toFixed(2)}`;', ' }'],
};
const display = { path: 'src/money.js', hunks: [hunk], added: 1, removed: 1 };
const rows = () => screen.getAllByRole('row').map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent));

describe('diff view', () => {
  it('is unified on a narrow card, with old and new line numbers; Split is offered only with room for it', () => {
    vi.stubGlobal('ResizeObserver', SizedObserver);
    render(<DiffView display={display} />);
    reportWidth(600);
    expect(screen.getByLabelText('1 lines added, 1 lines removed')).toBeTruthy();
    expect(rows()).toEqual([
      ['@@ -4,3 +4,3 @@'],
      ['4', '4', '', 'export function format(cents) {'],
      ['5', '', '−', '  return `$${cents / 100}`;'],
      ['', '5', '+', '  return `$${(cents / 100).toFixed(2)}`;'],
      ['6', '6', '', '}'],
    ]);
    expect(screen.getByRole('button', { name: 'Split' }).hasAttribute('disabled')).toBe(true);
  });

  it('goes side by side on a wide card (the change on one row), and the user’s Unified is kept for the next diff', async () => {
    vi.stubGlobal('ResizeObserver', SizedObserver);
    const { unmount } = render(<DiffView display={display} />);
    reportWidth(1000);
    expect(screen.getByRole('button', { name: 'Split' }).getAttribute('aria-pressed')).toBe('true');
    expect(rows()).toContainEqual(['5', '  return `$${cents / 100}`;', '5', '  return `$${(cents / 100).toFixed(2)}`;']);
    await userEvent.click(screen.getByRole('button', { name: 'Unified' }));
    expect(rows()).toContainEqual(['5', '', '−', '  return `$${cents / 100}`;']);
    unmount();
    render(<DiffView display={display} />);
    reportWidth(1000);
    expect(screen.getByRole('button', { name: 'Unified' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('shows the first 300 rows of a long diff and the rest on request', async () => {
    vi.stubGlobal('ResizeObserver', SizedObserver);
    const lines = Array.from({ length: 400 }, (_, i) => `+line ${i + 1}`);
    render(<DiffView display={{ path: 'big.txt', hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 400, lines }], added: 400, removed: 0 }} />);
    expect(screen.getByText('new file')).toBeTruthy();
    expect(screen.getAllByRole('row')).toHaveLength(300);
    await userEvent.click(screen.getByRole('button', { name: 'Show all 401 lines' }));
    expect(screen.getAllByRole('row')).toHaveLength(401);
    expect(rows().at(-1)).toEqual(['', '400', '+', 'line 400']);
  });
});
