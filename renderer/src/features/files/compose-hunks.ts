import { structuredPatch } from 'diff';
import type { DiffHunk } from '#protocol';

type Hunk = DiffHunk;

/** A stretch of the file known from the hunks: its lines at first (`old`, from line index `start`) and now (`cur`). */
interface Region {
  start: number;
  old: string[];
  cur: string[];
}

const side = (hunk: Hunk, drop: '+' | '-') => hunk.lines.filter((l) => !l.startsWith(drop)).map((l) => l.slice(1));
const curStart = (regions: readonly Region[], i: number) => regions[i]!.start + regions.slice(0, i).reduce((n, r) => n + r.cur.length - r.old.length, 0);

/**
 * The net change of several diffs of one file made one after another, from their hunks alone (tool events
 * keep no whole texts): each hunk's context and changed lines are stitched into stretches of the file known
 * before and after, which are diffed at the end. Null when a hunk marks a missing final newline, its counts do
 * not match its lines, or the hunks disagree about a line (then the caller shows each change).
 */
export function composeHunks(steps: ReadonlyArray<readonly Hunk[]>): Hunk[] | null {
  let regions: Region[] = [];
  for (const hunks of steps) {
    // Bottom up, so the hunks above still find the lines they number.
    for (const hunk of [...hunks].reverse()) {
      if (hunk.lines.some((l) => l.startsWith('\\'))) return null;
      const before = side(hunk, '+');
      const after = side(hunk, '-');
      // A hunk whose counts do not match its lines (a damaged log) cannot be placed.
      if (before.length !== hunk.oldLines || after.length !== hunk.newLines || hunk.oldStart < 0) return null;
      const a = hunk.oldLines ? hunk.oldStart - 1 : hunk.oldStart;
      const b = a + before.length;
      const touching = regions.map((r, i) => ({ r, i, s: curStart(regions, i) })).filter(({ r, s }) => s <= b && s + r.cur.length >= a);
      const shiftBefore = regions.filter((_, i) => curStart(regions, i) + regions[i]!.cur.length < a).reduce((n, r) => n + r.cur.length - r.old.length, 0);
      const from = Math.min(a, ...touching.map((t) => t.s));
      const to = Math.max(b, ...touching.map((t) => t.s + t.r.cur.length));
      // The stretch as it is now, and as it was at first, line by line.
      const cur: string[] = [];
      const old: string[] = [];
      let p = from;
      for (const t of touching) {
        for (; p < t.s; p++) {
          cur.push(before[p - a]!);
          old.push(before[p - a]!);
        }
        for (let k = 0; k < t.r.cur.length; k++) if (p + k >= a && p + k < b && before[p + k - a] !== t.r.cur[k]) return null;
        cur.push(...t.r.cur);
        old.push(...t.r.old);
        p = t.s + t.r.cur.length;
      }
      for (; p < to; p++) {
        cur.push(before[p - a]!);
        old.push(before[p - a]!);
      }
      const start = touching.length ? touching[0]!.r.start - Math.max(0, touching[0]!.s - from) : from - shiftBefore;
      const merged: Region = { start, old, cur: [...cur.slice(0, a - from), ...after, ...cur.slice(b - from)] };
      const first = touching.length ? touching[0]!.i : regions.filter((r) => r.start < start).length;
      regions = [...regions.slice(0, first), merged, ...regions.slice(first + touching.length)];
    }
  }
  const out: Hunk[] = [];
  let shift = 0;
  for (const region of regions) {
    const text = (lines: string[]) => (lines.length ? `${lines.join('\n')}\n` : '');
    for (const hunk of structuredPatch('a', 'b', text(region.old), text(region.cur), '', '', { context: 3 }).hunks) {
      out.push({
        oldStart: hunk.oldStart + region.start,
        oldLines: hunk.oldLines,
        newStart: hunk.newStart + region.start + shift,
        newLines: hunk.newLines,
        lines: hunk.lines,
      });
    }
    shift += region.cur.length - region.old.length;
  }
  return out;
}
