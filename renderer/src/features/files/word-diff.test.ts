import { describe, expect, it } from 'vitest';
import { changedRanges, markRanges, withWordChanges } from './word-diff';
import type { DiffRow } from './diff-model';

const line = (sign: ' ' | '-' | '+', text: string): DiffRow => ({ kind: 'line', line: { sign, segments: [{ text }] } });
const marked = (row: DiffRow | undefined) =>
  row?.kind === 'line' ? row.line.segments.filter((s) => s.className?.includes('diff-word')).map((s) => s.text) : [];

describe('word-level diff highlights', () => {
  it('marks the words that changed inside a changed line, on both sides', () => {
    expect(changedRanges('export const rate = 1;', 'export const rate = 2;')).toEqual({ removed: [[20, 21]], added: [[20, 21]] });
  });

  it('marks nothing when the line was rewritten rather than edited', () => {
    expect(changedRanges('const a = 1;', 'return render(tree);')).toBeNull();
  });

  it('splits highlighted segments at the changed words, keeping their syntax classes', () => {
    const segments = [{ text: 'const', className: 'hljs-keyword' }, { text: ' rate = ' }, { text: '1', className: 'hljs-number' }, { text: ';' }];
    expect(markRanges(segments, [[13, 14]])).toEqual([
      { text: 'const', className: 'hljs-keyword' },
      { text: ' rate = ' },
      { text: '1', className: 'hljs-number diff-word' },
      { text: ';' },
    ]);
    expect(markRanges([{ text: 'abcdef' }], [[2, 4]])).toEqual([{ text: 'ab' }, { text: 'cd', className: 'diff-word' }, { text: 'ef' }]);
  });

  it('pairs each run of removed lines with the added lines after it', () => {
    const rows = withWordChanges([
      line(' ', 'keep'),
      line('-', 'let total = price * 1;'),
      line('-', 'let tax = total * 0.2;'),
      line('+', 'let total = price * qty;'),
      line('+', 'let tax = total * 0.25;'),
      line('+', 'log(total);'),
    ]);
    expect(rows.map(marked)).toEqual([[], ['1'], ['2'], ['qty'], ['25'], []]);
  });
});
