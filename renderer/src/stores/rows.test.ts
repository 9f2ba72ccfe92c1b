import { describe, expect, it } from 'vitest';
import { type Row, appendRow, indexFromEnd, insertAt, removeAt, removeRow, replaceAt, rowById, sealRows, turnStart } from './rows';

const row = (id: string, turnId?: string): Row => ({ kind: 'notice', id, ...(turnId ? { turnId } : {}) });
const ids = (rows: readonly Row[]) => rows.map((r) => r.id);

describe('rows: found by id, changed in place only within a batch', () => {
  it('finds rows by id through appends, inserts, removals and replacements', () => {
    let rows: readonly Row[] = [];
    for (const id of ['a', 'b', 'c', 'd']) rows = appendRow(rows, row(id));
    rows = insertAt(rows, 1, row('x'));
    rows = removeAt(rows, 3);
    rows = replaceAt(rows, 0, { ...row('a'), kind: 'user' });
    rows = removeRow(rows, 'nope');
    expect(ids(rows)).toEqual(['a', 'x', 'b', 'd']);
    for (const [i, id] of ids(rows).entries()) expect(indexFromEnd(rows, id)).toBe(i);
    expect(indexFromEnd(rows, 'c')).toBe(-1);
    expect(rowById(rows, 'a')?.kind).toBe('user');
  });

  it('changes a batch’s own array in place and never one that was sealed (published)', () => {
    const first = appendRow(appendRow([], row('a')), row('b'));
    expect(appendRow(first, row('c'))).toBe(first);
    sealRows(first);
    const second = appendRow(first, row('d'));
    expect(second).not.toBe(first);
    expect(ids(first)).toEqual(['a', 'b', 'c']);
    // The sealed array is still found in correctly after its index went on to the next one.
    expect(indexFromEnd(first, 'c')).toBe(2);
    expect(indexFromEnd(first, 'd')).toBe(-1);
    sealRows(second);
    // Two batches from the same published rows do not see each other.
    const left = removeRow(second, 'a');
    sealRows(left);
    const right = insertAt(second, 0, row('z'));
    expect(ids(left)).toEqual(['b', 'c', 'd']);
    expect(ids(right)).toEqual(['z', 'a', 'b', 'c', 'd']);
    expect(ids(second)).toEqual(['a', 'b', 'c', 'd']);
    expect([indexFromEnd(left, 'd'), indexFromEnd(right, 'd'), indexFromEnd(second, 'd')]).toEqual([2, 4, 3]);
  });

  it('knows where a turn begins: at its prompt', () => {
    const rows = [row('t1:u', 't1'), row('n1'), row('t2:u', 't2'), row('c', 't2')];
    expect(turnStart(rows, 't2')).toBe(2);
    expect(turnStart(rows, 'gone')).toBe(0);
  });
});
