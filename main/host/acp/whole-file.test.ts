import { describe, expect, it } from 'vitest';
import { diffDisplay } from '#infra/text/diff-hunks';
import { WHOLE_FILE_MAX, wholeFileTexts } from './whole-file';

const lines = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i}${tag}`).join('\n');

describe('whole-file diffs', () => {
  const pairs: Array<[string, string]> = [
    ['', 'one\ntwo\n'],
    ['one\ntwo\n', ''],
    ['a\nb\nc\n', 'a\nB\nc\n'],
    ['a\nb\nc', 'a\nb\nc\n'],
    ['a\nb\nc\n', 'a\nb\nc'],
    ['a\nb', 'a\nc'],
    [`${lines(40)}\n`, `${lines(40).replace('line 3\n', 'line three\n').replace('line 30\n', '')}\n`],
    [`${lines(40)}\n`, `start\n${lines(40)}\nend\n`],
  ];
  it('takes the hunks back from the new text: the old text exactly', () => {
    for (const [before, after] of pairs) {
      const { hunks } = diffDisplay('f', before, after);
      expect(wholeFileTexts(hunks, after), JSON.stringify([before, after])).toEqual({ oldText: before, newText: after });
    }
  });

  it('keeps the hunks when the file changed since, or is too large', () => {
    const { hunks } = diffDisplay('f', 'a\nb\nc\n', 'a\nB\nc\n');
    expect(wholeFileTexts(hunks, 'a\nX\nc\n')).toBeNull();
    expect(wholeFileTexts(hunks, 'a\nB\n')).toBeNull();
    expect(wholeFileTexts([], 'a\n')).toBeNull();
    const big = 'x'.repeat(WHOLE_FILE_MAX) + '\n';
    expect(wholeFileTexts(diffDisplay('f', '', big).hunks, big)).toBeNull();
  });
});
