import { describe, expect, it } from 'vitest';
import type { TranscriptItem } from '../../stores/transcript';
import { LATEST_ROWS, isOwnPrompt, withLatestTurn } from './latest-turn';

const prompt = (id: string, origin?: 'user' | 'cron'): TranscriptItem => ({
  kind: 'user',
  id,
  turnId: id,
  text: id,
  attachments: [],
  mentions: [],
  at: 0,
  seq: 0,
  ...(origin ? { origin } : {}),
});
const notice = (id: string): TranscriptItem => ({ kind: 'notice', id, level: 'info', text: id });
const range = (startIndex: number, endIndex: number, count: number) => ({ startIndex, endIndex, overscan: 0, count });

describe('the rows rendered', () => {
  it('are those near the viewport plus the latest prompt and the rows after it, wherever the reader is', () => {
    const items = [prompt('p1'), notice('a'), notice('b'), prompt('p2'), notice('c'), notice('d')];
    expect(withLatestTurn(items)(range(0, 1, items.length))).toEqual([0, 1, 3, 4, 5]);
    expect(withLatestTurn(items)(range(3, 5, items.length))).toEqual([3, 4, 5]);
    expect(withLatestTurn([notice('x'), notice('y')])(range(0, 0, 2))).toEqual([0]);
  });

  it('keep a long latest turn to its prompt and its newest rows', () => {
    const items = [prompt('p1'), ...Array.from({ length: 100 }, (_, i) => notice(`n${i}`))];
    const rows = withLatestTurn(items)(range(10, 12, items.length));
    expect(rows.slice(0, 4)).toEqual([0, 10, 11, 12]);
    expect(rows.length).toBe(4 + LATEST_ROWS - 1);
    expect(rows.at(-1)).toBe(100);
  });

  it('a prompt the user sent (or an older row without origin) follows the newest; a scheduled one does not', () => {
    expect(isOwnPrompt(prompt('p', 'user'))).toBe(true);
    expect(isOwnPrompt(prompt('p'))).toBe(true);
    expect(isOwnPrompt(prompt('p', 'cron'))).toBe(false);
    expect(isOwnPrompt(notice('n'))).toBe(false);
  });
});
