import { applyPatch, structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { composeHunks } from './compose-hunks';

const hunks = (a: string, b: string) => structuredPatch('a', 'b', a, b, '', '', { context: 3 }).hunks;

describe('composeHunks', () => {
  it('gives the net change of edits made one after another, from their hunks alone', () => {
    const v0 = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const v1 = v0.replace('line 5\n', 'line five\n');
    const v2 = v1.replace('line 35\n', 'line thirty-five\n');
    expect(composeHunks([hunks(v0, v1), hunks(v1, v2)])).toEqual(hunks(v0, v2));
    // An edit undone by the next one leaves nothing to show.
    expect(composeHunks([hunks(v0, v1), hunks(v1, v0)])).toEqual([]);
  });

  it('agrees with a diff of the whole texts on random edits (applying it gives the last text)', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const words = ['a', 'b', 'c', 'dd', 'e', ''];
    const lines = (n: number) => Array.from({ length: n }, () => words[rand(words.length)]!);
    for (let round = 0; round < 400; round++) {
      let text = lines(1 + rand(30));
      const versions = [text];
      for (let step = 0; step < 1 + rand(4); step++) {
        const at = rand(text.length + 1);
        const cut = rand(Math.min(4, text.length - at) + 1);
        text = [...text.slice(0, at), ...lines(rand(4)), ...text.slice(at + cut)];
        versions.push(text);
      }
      const texts = versions.map((v) => (v.length ? `${v.join('\n')}\n` : ''));
      const composed = composeHunks(texts.slice(1).map((t, i) => hunks(texts[i]!, t)));
      expect(composed, `round ${round}`).not.toBeNull();
      expect(applyPatch(texts[0]!, { hunks: composed! } as Parameters<typeof applyPatch>[1]), `round ${round}`).toBe(texts.at(-1));
    }
  });

  it('gives up on a hunk about a missing final newline, a damaged hunk, or hunks that disagree', () => {
    expect(composeHunks([hunks('a\nb', 'a\nc')])).toBeNull();
    expect(composeHunks([[{ oldStart: 1, oldLines: 5, newStart: 1, newLines: 1, lines: ['-a', '+b'] }]])).toBeNull();
    // The second edit claims line 1 was 'x', but the first left it 'b'.
    expect(composeHunks([hunks('a\n', 'b\n'), hunks('x\n', 'y\n')])).toBeNull();
  });
});
