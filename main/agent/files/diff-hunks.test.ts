import { describe, expect, it } from 'vitest';
import { DIFF_FULL_TEXT_LIMIT, DIFF_MAX_HUNK_LINES, diffDisplay, diffTexts } from './diff-hunks';

const numbered = (n: number, at = 1) => Array.from({ length: n }, (_, i) => `line ${i + at}`).join('\n') + '\n';

describe('diffTexts', () => {
  it('returns no hunks for equal texts', () => {
    expect(diffTexts('a\nb\n', 'a\nb\n')).toEqual({ hunks: [], added: 0, removed: 0 });
  });

  it('makes one hunk with three lines of context around a change', () => {
    const before = numbered(20);
    const after = before.replace('line 10\n', 'line ten\n');
    expect(diffTexts(before, after)).toEqual({
      added: 1,
      removed: 1,
      hunks: [{ oldStart: 7, oldLines: 7, newStart: 7, newLines: 7, lines: [' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13'] }],
    });
  });

  it('splits distant changes into separate hunks and merges close ones', () => {
    const before = numbered(40);
    const far = diffTexts(before, before.replace('line 5\n', 'five\n').replace('line 30\n', 'thirty\n'));
    expect(far.hunks.map((h) => [h.oldStart, h.oldLines])).toEqual([
      [2, 7],
      [27, 7],
    ]);
    const near = diffTexts(before, before.replace('line 5\n', 'five\n').replace('line 11\n', 'eleven\n'));
    expect(near.hunks).toHaveLength(1);
  });

  it('describes a new file, a deleted file and a change of the final newline', () => {
    expect(diffTexts('', 'a\nb\n').hunks).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+a', '+b'] }]);
    expect(diffTexts('a\n', '').hunks).toEqual([{ oldStart: 1, oldLines: 1, newStart: 0, newLines: 0, lines: ['-a'] }]);
    expect(diffTexts('a\nb', 'a\nb\n').hunks[0]!.lines).toEqual([' a', '-b', '\\ No newline at end of file', '+b']);
  });

  it('diffs only the changed middle of a large file', () => {
    const before = numbered(300_000);
    const after = before.replace('line 150000\n', 'changed\n');
    const { hunks, added, removed } = diffTexts(before, after);
    expect([added, removed]).toEqual([1, 1]);
    expect(hunks[0]).toMatchObject({ oldStart: 149997, newStart: 149997 });
  });
});

describe('diffDisplay', () => {
  it('carries whole texts only when small, and caps hunk lines', () => {
    const small = diffDisplay('a.txt', 'x\n', 'y\n');
    expect(small).toMatchObject({ kind: 'diff', path: 'a.txt', before: 'x\n', after: 'y\n', added: 1, removed: 1 });
    expect(small.omitted).toBeUndefined();
    const big = 'z'.repeat(DIFF_FULL_TEXT_LIMIT);
    expect(diffDisplay('b.txt', big, `${big}\nmore\n`)).toMatchObject({ before: '', after: '', omitted: true });
    const huge = diffDisplay('c.txt', '', numbered(DIFF_MAX_HUNK_LINES + 500));
    expect(huge).toMatchObject({ added: DIFF_MAX_HUNK_LINES + 500, truncated: true });
    expect(huge.hunks.reduce((n, h) => n + h.lines.length, 0)).toBe(DIFF_MAX_HUNK_LINES);
  });
});
