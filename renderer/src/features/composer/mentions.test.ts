import { describe, expect, it } from 'vitest';
import { activeMention, insertMention, mentionsIn, tokenRanges } from './mentions';

describe('@-mentions in the composer', () => {
  it('opens at an @ that starts a word, not inside an e-mail address', () => {
    expect(activeMention('@', 1)).toEqual({ start: 0, end: 1, query: '' });
    expect(activeMention('look at @src/mo', 15)).toEqual({ start: 8, end: 15, query: 'src/mo' });
    expect(activeMention('mail me@example.com', 19)).toBeNull();
    expect(activeMention('@src/a.ts and more', 18)).toBeNull();
    expect(activeMention('a\n@x', 4)).toEqual({ start: 2, end: 4, query: 'x' });
  });

  it('replaces the query with the path and a space, leaving the caret after it', () => {
    const active = activeMention('see @mon please', 8)!;
    expect(insertMention('see @mon please', active, 'src/money.js')).toEqual({ text: 'see @src/money.js please', caret: 18 });
    expect(insertMention('@', activeMention('@', 1)!, 'README.md')).toEqual({ text: '@README.md ', caret: 11 });
  });

  it('finds whole tokens only, longest label first, and keeps the mentions still in the text', () => {
    const text = 'compare @src/a.ts and @src/a.ts.bak, not x@src/a.ts';
    expect(tokenRanges(text, ['src/a.ts', 'src/a.ts.bak'])).toEqual([{ start: 8, end: 17 }]);
    expect(tokenRanges('@src/a.ts.bak @src/a.ts', ['src/a.ts', 'src/a.ts.bak'])).toEqual([
      { start: 0, end: 13 },
      { start: 14, end: 23 },
    ]);
    const mentions = [
      { label: 'src/a.ts', path: 'src/a.ts' },
      { label: 'gone.md', path: 'gone.md' },
    ];
    expect(mentionsIn('fix @src/a.ts', mentions)).toEqual([mentions[0]]);
  });
});
