import { describe, expect, it } from 'vitest';
import { DIFF_MAX_HUNK_LINES, diffDisplay, diffTexts } from './diff-hunks';

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
      hunks: [
        {
          oldStart: 7,
          oldLines: 7,
          newStart: 7,
          newLines: 7,
          lines: [' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13'],
        },
      ],
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
  it('carries the hunks and counts, never the whole texts, and caps hunk lines', () => {
    const small = diffDisplay('a.txt', 'x\n', 'y\n');
    expect(small).toEqual({
      kind: 'diff',
      path: 'a.txt',
      hunks: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-x', '+y'] }],
      added: 1,
      removed: 1,
    });
    const file = numbered(200);
    const edited = diffDisplay('b.txt', file, file.replace('line 100\n', 'line hundred\n'));
    expect(Object.keys(edited).sort()).toEqual(['added', 'hunks', 'kind', 'path', 'removed']);
    expect(edited.hunks).toEqual([
      {
        oldStart: 97,
        oldLines: 7,
        newStart: 97,
        newLines: 7,
        lines: [' line 97', ' line 98', ' line 99', '-line 100', '+line hundred', ' line 101', ' line 102', ' line 103'],
      },
    ]);
    const huge = diffDisplay('c.txt', '', numbered(DIFF_MAX_HUNK_LINES + 500));
    expect(huge).toMatchObject({ added: DIFF_MAX_HUNK_LINES + 500, truncated: true });
    expect(huge.hunks.reduce((n, h) => n + h.lines.length, 0)).toBe(DIFF_MAX_HUNK_LINES);
  });
});

describe('diffTexts against a plain line diff', () => {
  it('agrees on random edits (numbers, counts and lines)', async () => {
    const { structuredPatch } = await import('diff');
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const lines = Array.from({ length: 1 + rand(30) }, () => ['a', 'b', 'c', 'dd', ''][rand(5)]!);
      const before = lines.join('\n') + (rand(2) ? '\n' : '');
      const edited = [...lines];
      for (let k = 0; k < 1 + rand(3); k++) {
        const at = rand(edited.length + 1);
        if (rand(2)) edited.splice(at, rand(3), ...Array.from({ length: rand(3) }, () => ['x', 'a', 'yy'][rand(3)]!));
        else edited.splice(at, 0, 'new');
      }
      const after = edited.join('\n') + (rand(2) ? '\n' : '');
      const ours = diffTexts(before, after);
      const apply = (text: string) => {
        // Rebuild `after` from `before` with our hunks: proves numbers and lines are right.
        const out = text === '' ? [] : text.replace(/\n$/, '').split('\n');
        let shift = 0;
        for (const h of ours.hunks) {
          const removed = h.lines.filter((l) => l[0] === ' ' || l[0] === '-').length;
          const added = h.lines.filter((l) => l[0] === ' ' || l[0] === '+').map((l) => l.slice(1));
          const at = (h.oldLines ? h.oldStart - 1 : h.oldStart) + shift;
          out.splice(at, removed, ...added);
          shift += added.length - removed;
        }
        return out.join('\n');
      };
      expect(apply(before), `${JSON.stringify(before)} → ${JSON.stringify(after)}`).toBe(after.replace(/\n$/, ''));
      const reference = structuredPatch('a', 'b', before, after, '', '', { context: 3 });
      const count = (sign: string) => reference.hunks.flatMap((h) => h.lines).filter((l) => l[0] === sign).length;
      expect(ours.added - ours.removed).toBe(count('+') - count('-'));
    }
  });
});
