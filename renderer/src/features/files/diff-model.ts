import { structuredPatch } from 'diff';
import type { DiffHunk, ToolResultDisplay } from '#protocol';
import { countChanges, hunksOf } from '../../stores/changes';
import { composeHunks } from './compose-hunks';
import { type Segment, highlightLines, languageFor } from './highlight';

export type DiffDisplay = Extract<ToolResultDisplay, { kind: 'diff' }>;
type Hunk = DiffHunk;

/** One line of a diff, with its numbers on each side and highlighted text. */
export interface DiffLine {
  sign: ' ' | '-' | '+';
  oldNo?: number;
  newNo?: number;
  segments: Segment[];
}

export type DiffRow = { kind: 'hunk'; header: string } | { kind: 'line'; line: DiffLine } | { kind: 'note'; text: string };

/** Unified rows for a diff, highlighted per hunk side (old side: context + removed; new side: context + added). */
export function diffRows(path: string, hunks: readonly Hunk[]): DiffRow[] {
  const language = languageFor(path);
  const rows: DiffRow[] = [];
  for (const hunk of hunks) {
    rows.push({ kind: 'hunk', header: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    const body = hunk.lines.filter((l) => !l.startsWith('\\'));
    const oldSide = highlightLines(
      body
        .filter((l) => !l.startsWith('+'))
        .map((l) => l.slice(1))
        .join('\n'),
      language,
    );
    const newSide = highlightLines(
      body
        .filter((l) => !l.startsWith('-'))
        .map((l) => l.slice(1))
        .join('\n'),
      language,
    );
    let o = hunk.oldStart;
    let n = hunk.newStart;
    let oi = 0;
    let ni = 0;
    for (const raw of hunk.lines) {
      if (raw.startsWith('\\')) {
        rows.push({ kind: 'note', text: raw.slice(1).trim() });
        continue;
      }
      const sign = raw[0] === '+' || raw[0] === '-' ? raw[0] : ' ';
      if (sign === '-') rows.push({ kind: 'line', line: { sign, oldNo: o++, segments: oldSide[oi++] ?? [] } });
      else if (sign === '+') rows.push({ kind: 'line', line: { sign, newNo: n++, segments: newSide[ni++] ?? [] } });
      else {
        rows.push({ kind: 'line', line: { sign, oldNo: o++, newNo: n++, segments: newSide[ni++] ?? [] } });
        oi++;
      }
    }
  }
  return rows;
}

export type SplitRow = { kind: 'hunk'; header: string } | { kind: 'note'; text: string } | { kind: 'pair'; left?: DiffLine; right?: DiffLine };

/** Side-by-side rows: context on both sides, removed lines paired with the added lines that replace them. */
export function splitRows(rows: readonly DiffRow[]): SplitRow[] {
  const out: SplitRow[] = [];
  let removed: DiffLine[] = [];
  let added: DiffLine[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) {
      const pair: SplitRow = { kind: 'pair' };
      if (removed[i]) pair.left = removed[i];
      if (added[i]) pair.right = added[i];
      out.push(pair);
    }
    removed = [];
    added = [];
  };
  for (const row of rows) {
    if (row.kind === 'line' && row.line.sign === '-') {
      if (added.length) flush();
      removed.push(row.line);
    } else if (row.kind === 'line' && row.line.sign === '+') added.push(row.line);
    else {
      flush();
      out.push(row.kind === 'line' ? { kind: 'pair', left: row.line, right: row.line } : row);
    }
  }
  flush();
  return out;
}

/**
 * The net change to one file over several diffs of a turn: first `before` to last `after` when the
 * whole texts are known (events written before tool events were slimmed), else composed from the
 * hunks; null when neither can be had (the caller then shows each change).
 */
export function combinedDiff(path: string, displays: readonly DiffDisplay[]): DiffDisplay | null {
  if (!displays.length || displays.some((d) => d.omitted)) return null;
  if (displays.length === 1) return displays[0]!;
  const before = displays[0]!.before;
  const after = displays[displays.length - 1]!.after;
  if (before === undefined || after === undefined) {
    const hunks = displays.some((d) => d.truncated) ? null : composeHunks(displays.map((d) => hunksOf(d)));
    return hunks && { kind: 'diff', path, hunks, ...countChanges(hunks) };
  }
  const hunks = structuredPatch('a', 'b', before, after, '', '', { context: 3 }).hunks;
  return { kind: 'diff', path, before, after, hunks, ...countChanges(hunks) };
}
