import { describe, expect, it } from 'vitest';
import { diffDisplay } from '#infra/text/diff-hunks';
import { WHOLE_FILE_MAX, replayWholeFiles, wholeFileTexts } from './whole-file';

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

  it('gives a replay whole files back through each file’s changes, one read per file, until something else changed it', async () => {
    const result = (callId: string, path: string, before: string, after: string) => ({
      type: 'tool.call.result',
      callId,
      isError: false,
      display: { ...diffDisplay(path, before, after), kind: 'diff' },
    });
    const events = [
      result('w1', 'a.txt', '', 'one\n'),
      // Something outside the calls (a command) changed a.txt here: 'one' became 'uno'.
      result('e1', 'a.txt', 'uno\n', 'uno\ntwo\n'),
      result('e2', 'a.txt', 'uno\ntwo\n', 'uno\nTWO\n'),
      result('w2', '/abs/b.txt', '', 'bee\n'),
      { type: 'tool.call.result', callId: 'failed', isError: true, display: { ...diffDisplay('a.txt', 'x', 'y'), kind: 'diff' } },
    ];
    const files: Record<string, string> = { 'a.txt': 'uno\nTWO\n', '/abs/b.txt': 'bee\n' };
    const reads: string[] = [];
    const read = async (path: string) => (reads.push(path), { content: files[path]!, truncated: false, size: files[path]!.length });
    const updates = await replayWholeFiles(events, '/ws', read);
    expect([...updates.keys()].sort()).toEqual(['e1', 'e2', 'w2']);
    expect(updates.get('e2')).toMatchObject({ content: [{ type: 'diff', path: '/ws/a.txt', oldText: 'uno\ntwo\n', newText: 'uno\nTWO\n' }] });
    expect(updates.get('e1')).toMatchObject({ content: [{ oldText: 'uno\n', newText: 'uno\ntwo\n' }] });
    expect(updates.get('w2')).toMatchObject({ content: [{ path: '/abs/b.txt', oldText: null, newText: 'bee\n' }] });
    expect(reads.sort()).toEqual(['/abs/b.txt', 'a.txt']);
  });
});
