import { describe, expect, it } from 'vitest';
import { changedFiles, countChanges, hunksOf } from './changes';

const edit = (id: string, turnId: string, path: string, extra: Record<string, unknown> = {}, isError = false) => ({
  kind: 'tool',
  id,
  turnId,
  result: { isError, display: { kind: 'diff' as const, path, before: 'a\nb\n', after: 'a\nc\nd\n', ...extra } },
});

describe('the files a turn changed', () => {
  it('adds up each file’s changes over the turn’s calls, in the order first changed', () => {
    const rows = [
      edit('c1', 't', 'b.ts', { added: 3, removed: 1 }),
      edit('c2', 't', 'a.ts'),
      edit('c3', 't', 'b.ts', { added: 1, removed: 0 }),
      edit('c4', 'other', 'c.ts'),
      edit('c5', 't', 'd.ts', {}, true),
      { kind: 'tool', id: 'c6', turnId: 't', result: { isError: false, display: { kind: 'text' as const, text: 'hi' } } },
      { kind: 'notice', id: 'n', turnId: 't' },
    ];
    expect(changedFiles(rows, 't')).toEqual([
      { path: 'b.ts', added: 4, removed: 1, callIds: ['c1', 'c3'] },
      // No counts sent: counted from the texts.
      { path: 'a.ts', added: 2, removed: 1, callIds: ['c2'] },
    ]);
    expect(changedFiles(rows, 'none')).toEqual([]);
  });

  it('counts added and removed lines from hunks, computed from the texts when none were sent', () => {
    const hunks = hunksOf({ before: 'one\ntwo\n', after: 'one\nthree\nfour\n' });
    expect(countChanges(hunks)).toEqual({ added: 2, removed: 1 });
    const sent = [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-x', '+y'] }];
    expect(hunksOf({ before: '', after: '', hunks: sent })).toBe(sent);
  });
});
