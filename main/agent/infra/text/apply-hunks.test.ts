import { describe, expect, it } from 'vitest';
import { applyHunks, revertHunk } from './apply-hunks';
import { diffTexts } from './diff-hunks';

/** Deterministic pseudo-random texts: lines from a small alphabet, with and without a final line break. */
function random(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) >>> 0) / 2 ** 32;
}
function text(next: () => number, lines: number): string {
  const out = Array.from({ length: lines }, () => ['a', 'b', 'c', 'd', ''][Math.floor(next() * 5)]!);
  return out.join('\n') + (next() < 0.5 ? '\n' : '');
}
function mutate(next: () => number, before: string): string {
  const lines = before.split('\n');
  for (let k = 0; k < 4; k++) {
    const at = Math.floor(next() * (lines.length + 1));
    const roll = next();
    if (roll < 0.3) lines.splice(at, 1);
    else if (roll < 0.6) lines.splice(at, 0, `new${k}`);
    else if (at < lines.length) lines[at] = `changed${k}`;
  }
  return next() < 0.2 ? lines.join('\n').replace(/\n$/, '') : lines.join('\n');
}

describe('applyHunks', () => {
  it('applies all hunks to give the new text, none to give the old, and any subset cleanly (500 random cases)', () => {
    const next = random(7);
    for (let i = 0; i < 500; i++) {
      const before = text(next, 1 + Math.floor(next() * 40));
      const after = mutate(next, before);
      const { hunks } = diffTexts(before, after, Math.floor(next() * 3));
      expect(
        applyHunks(
          before,
          hunks,
          hunks.map(() => true),
        ),
      ).toBe(after);
      expect(
        applyHunks(
          before,
          hunks,
          hunks.map(() => false),
        ),
      ).toBe(before);
      const mask = hunks.map(() => next() < 0.5);
      const partial = applyHunks(before, hunks, mask);
      // What was accepted is all there is to take back: the rest of the diff from the old text is exactly the accepted hunks.
      const rest = diffTexts(partial, after, 0);
      const rejected = mask.filter((m) => !m).length;
      if (rejected === 0) expect(partial).toBe(after);
      else expect(rest.hunks.length).toBeGreaterThan(0);
    }
  });

  it('keeps the other hunks when one is rejected', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 15\n', 'LINE 15\nextra\n');
    const { hunks } = diffTexts(before, after);
    expect(hunks).toHaveLength(2);
    expect(applyHunks(before, hunks, [false, true])).toBe(before.replace('line 15\n', 'LINE 15\nextra\n'));
    expect(applyHunks(before, hunks, [true, false])).toBe(before.replace('line 2\n', 'LINE 2\n'));
  });
});

describe('revertHunk', () => {
  it('takes one hunk back out, also after lines were added above it, and refuses when its lines changed', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 15\n', 'LINE 15\nextra\n');
    const { hunks } = diffTexts(before, after);
    expect(revertHunk(after, hunks[1]!)).toBe(before.replace('line 2\n', 'LINE 2\n'));
    const shifted = 'header\nheader\n' + after;
    expect(revertHunk(shifted, hunks[1]!)).toBe('header\nheader\n' + before.replace('line 2\n', 'LINE 2\n'));
    expect(revertHunk(after.replace('extra', 'edited later'), hunks[1]!)).toBeNull();
  });
});
