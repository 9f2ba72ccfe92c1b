import { diffLines } from 'diff';
import { describe, expect, it } from 'vitest';
import { lineEditCounts } from './line-counts';

/** The counts as the `diff` package gives them (what tree-diff.ts used before). */
function reference(a: string, b: string): [number, number] {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(a, b)) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return [added, removed];
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('lineEditCounts', () => {
  it('equals the diff package on edge cases: empty texts, a missing last newline, CRLF, repeated lines', () => {
    const cases: Array<[string, string]> = [
      ['', ''],
      ['', 'a\n'],
      ['a\n', ''],
      ['a', 'a\n'],
      ['a\nb', 'a\nb\n'],
      ['a\r\nb\r\n', 'a\nb\n'],
      ['x\nx\nx\n', 'x\nx\n'],
      ['a\nb\nc\n', 'c\nb\na\n'],
      ['one\ntwo\nthree\n', 'one\n2\nthree\nfour'],
      ['\n\n\n', '\n'],
    ];
    for (const [a, b] of cases) expect(lineEditCounts(a, b, 1_000), JSON.stringify([a, b])).toEqual(reference(a, b));
  });

  it('equals the diff package on 2,000 random edits of texts with many repeated lines', () => {
    const next = random(36);
    const words = ['{', '}', 'return x;', '', 'let a = 1;', 'b++;', '// note', 'end'];
    const text = (lines: number) => Array.from({ length: lines }, () => words[Math.floor(next() * words.length)]!).join('\n') + (next() < 0.5 ? '\n' : '');
    for (let i = 0; i < 2_000; i++) {
      const a = text(Math.floor(next() * 40));
      const lines = a.split('\n');
      // Some edits of `a` (so much is shared), some unrelated texts.
      const b =
        next() < 0.7
          ? lines.flatMap((line) => (next() < 0.15 ? [] : next() < 0.15 ? [line, words[Math.floor(next() * words.length)]!] : [line])).join('\n')
          : text(Math.floor(next() * 40));
      expect(lineEditCounts(a, b, 1_000), JSON.stringify([a, b])).toEqual(reference(a, b));
    }
  });

  it('gives null when the minimal diff changes `limit` lines or more', () => {
    const a = Array.from({ length: 150 }, (_, i) => `a${i}`).join('\n');
    const b = Array.from({ length: 150 }, (_, i) => `b${i}`).join('\n');
    expect(lineEditCounts(a, b, 300)).toBeNull();
    expect(lineEditCounts(a, b, 301)).toEqual([150, 150]);
    expect(lineEditCounts(`${a}\nx`, `${a}\ny`, 2)).toBeNull();
    expect(lineEditCounts(`${a}\nx`, `${a}\ny`, 3)).toEqual([1, 1]);
  });
});
