import { diffWordsWithSpace } from 'diff';
import type { DiffLine, DiffRow } from './diff-model';
import type { Segment } from './highlight';

/** Below this share of unchanged text a line was rewritten, not edited: marking words would mark it all. */
const MIN_COMMON = 0.4;
/** Longer lines are not compared word by word (minified code). */
const MAX_LINE = 2_000;

type Range = [from: number, to: number];

const textOf = (line: DiffLine) => line.segments.map((s) => s.text).join('');

/** The changed stretches of a removed line and of the added line that replaced it, or null when they have too little in common. */
export function changedRanges(before: string, after: string): { removed: Range[]; added: Range[] } | null {
  if (before.length > MAX_LINE || after.length > MAX_LINE || before === after) return null;
  const removed: Range[] = [];
  const added: Range[] = [];
  let o = 0;
  let n = 0;
  let common = 0;
  for (const part of diffWordsWithSpace(before, after)) {
    const length = part.value.length;
    if (part.removed) removed.push([o, (o += length)]);
    else if (part.added) added.push([n, (n += length)]);
    else {
      o += length;
      n += length;
      common += part.value.trim() ? length : 0;
    }
  }
  return common / Math.max(before.trim().length, after.trim().length, 1) < MIN_COMMON ? null : { removed, added };
}

/** The segments with the characters in `ranges` split out and marked as a changed word (`diff-word`). */
export function markRanges(segments: readonly Segment[], ranges: readonly Range[]): Segment[] {
  if (!ranges.length) return [...segments];
  const out: Segment[] = [];
  let at = 0;
  for (const segment of segments) {
    const end = at + segment.text.length;
    let cursor = at;
    for (const [from, to] of ranges) {
      if (to <= cursor || from >= end) continue;
      const start = Math.max(from, cursor);
      if (start > cursor) out.push(piece(segment, cursor - at, start - at, false));
      const stop = Math.min(to, end);
      out.push(piece(segment, start - at, stop - at, true));
      cursor = stop;
    }
    if (cursor < end) out.push(piece(segment, cursor - at, end - at, false));
    at = end;
  }
  return out;
}

function piece(segment: Segment, from: number, to: number, changed: boolean): Segment {
  const text = segment.text.slice(from, to);
  const className = changed ? [segment.className, 'diff-word'].filter(Boolean).join(' ') : segment.className;
  return className ? { text, className } : { text };
}

/**
 * Rows with the changed words inside changed lines marked: each run of removed lines is paired, in
 * order, with the run of added lines that follows it (as the split view pairs them).
 */
export function withWordChanges(rows: readonly DiffRow[]): DiffRow[] {
  const out = [...rows];
  let i = 0;
  while (i < out.length) {
    const removedStart = i;
    while (isLine(out[i], '-')) i++;
    const addedStart = i;
    while (isLine(out[i], '+')) i++;
    const pairs = Math.min(addedStart - removedStart, i - addedStart);
    for (let k = 0; k < pairs; k++) {
      const left = out[removedStart + k] as Extract<DiffRow, { kind: 'line' }>;
      const right = out[addedStart + k] as Extract<DiffRow, { kind: 'line' }>;
      const ranges = changedRanges(textOf(left.line), textOf(right.line));
      if (!ranges) continue;
      out[removedStart + k] = { kind: 'line', line: { ...left.line, segments: markRanges(left.line.segments, ranges.removed) } };
      out[addedStart + k] = { kind: 'line', line: { ...right.line, segments: markRanges(right.line.segments, ranges.added) } };
    }
    if (i === removedStart) i++;
  }
  return out;
}

const isLine = (row: DiffRow | undefined, sign: '-' | '+') => row?.kind === 'line' && row.line.sign === sign;
