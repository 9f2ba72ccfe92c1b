import type { DiffHunk } from '#protocol';
import { diffPackage } from '#infra/platform/on-demand';

type Hunk = DiffHunk;
type Op = { sign: ' ' | '-' | '+' | '\\'; text: string };

export interface TextDiff {
  hunks: Hunk[];
  added: number;
  removed: number;
}

/** Give up on a minimal diff after this long and show the changed block as removed + added. */
const DIFF_TIMEOUT_MS = 500;
/** Marks a last line that has no line break, so a change of only the final newline still shows. */
const NO_EOL = '\u0000no-eol';
const NO_EOL_NOTE = ' No newline at end of file';

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += NO_EOL;
  return lines;
}

function push(ops: Op[], sign: Op['sign'], line: string): void {
  if (line.endsWith(NO_EOL)) ops.push({ sign, text: line.slice(0, -NO_EOL.length) }, { sign: '\\', text: NO_EOL_NOTE });
  else ops.push({ sign, text: line });
}

/** Length of the common prefix, compared a block at a time. */
function commonPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let at = 0;
  for (const block of [65_536, 4_096, 256]) while (at + block <= max && a.slice(at, at + block) === b.slice(at, at + block)) at += block;
  while (at < max && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let at = 0;
  for (const block of [65_536, 4_096, 256]) {
    while (at + block <= limit && a.slice(a.length - at - block, a.length - at) === b.slice(b.length - at - block, b.length - at)) at += block;
  }
  while (at < limit && a.charCodeAt(a.length - 1 - at) === b.charCodeAt(b.length - 1 - at)) at++;
  return at;
}

/** Where the `lines`-th line break before `end` ends (0 when there are fewer lines). */
function startOfLinesBefore(text: string, end: number, lines: number): number {
  let at = end;
  for (let i = 0; i <= lines; i++) {
    if (at <= 0) return 0;
    const feed = text.lastIndexOf('\n', at - 1);
    if (feed === -1) return 0;
    if (i === lines) return feed + 1;
    at = feed;
  }
  return 0;
}

function countFeeds(text: string, end: number): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * Unified-diff hunks between two texts (LF line breaks). The identical head and tail are found by
 * comparing characters in blocks and only the changed middle (with its context lines) is split and
 * diffed, so an edit in a large file costs a scan, not a full diff.
 */
export function diffTexts(before: string, after: string, context = 3): TextDiff {
  const prefix = commonPrefix(before, after);
  if (prefix === before.length && prefix === after.length) return { hunks: [], added: 0, removed: 0 };
  // Cut at line starts, keeping `context` whole lines on each side of the change.
  // (lastIndexOf with a negative start still looks at index 0, hence the guard.)
  const lineStart = prefix === 0 ? 0 : before.lastIndexOf('\n', prefix - 1) + 1;
  const from = startOfLinesBefore(before, lineStart, context);
  const suffix = commonSuffix(before, after, Math.min(before.length, after.length) - lineStart);
  // The first line break inside the common tail ends the change: after it, lines are equal in both.
  let to = before.length;
  const feed = before.indexOf('\n', before.length - suffix);
  if (feed !== -1) {
    to = feed + 1;
    for (let i = 0; i < context && to < before.length; i++) {
      const next = before.indexOf('\n', to);
      to = next === -1 ? before.length : next + 1;
    }
  }
  const cutEnd = before.length - to;
  const skipped = countFeeds(before, from);
  const diff = diffWhole(before.slice(from, to), after.slice(from, after.length - cutEnd), context);
  for (const hunk of diff.hunks) {
    hunk.oldStart += skipped;
    hunk.newStart += skipped;
  }
  return diff;
}

function diffWhole(before: string, after: string, context: number): TextDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  if (!midA.length && !midB.length) return { hunks: [], added: 0, removed: 0 };

  const ops: Op[] = [];
  const lead = Math.max(0, prefix - context);
  for (let i = lead; i < prefix; i++) push(ops, ' ', a[i]!);
  const changes = diffPackage().diffArrays(midA, midB, { timeout: DIFF_TIMEOUT_MS });
  if (changes) {
    for (const change of changes) {
      const sign = change.added ? '+' : change.removed ? '-' : ' ';
      for (const text of change.value) push(ops, sign, text);
    }
  } else {
    for (const text of midA) push(ops, '-', text);
    for (const text of midB) push(ops, '+', text);
  }
  for (let i = 0; i < Math.min(context, suffix); i++) push(ops, ' ', a[a.length - suffix + i]!);
  return toHunks(ops, lead + 1, lead + 1, context);
}

function toHunks(ops: Op[], oldFirst: number, newFirst: number, context: number): TextDiff {
  const hunks: Hunk[] = [];
  let added = 0;
  let removed = 0;
  // Line numbers before each op; a "no newline" note belongs to the line before it.
  const oldNo: number[] = [];
  const newNo: number[] = [];
  let o = oldFirst;
  let n = newFirst;
  for (const op of ops) {
    oldNo.push(o);
    newNo.push(n);
    if (op.sign === ' ' || op.sign === '-') o++;
    if (op.sign === ' ' || op.sign === '+') n++;
    if (op.sign === '+') added++;
    if (op.sign === '-') removed++;
  }
  const changed = ops.map((op, i) => (op.sign === '+' || op.sign === '-' ? i : -1)).filter((i) => i >= 0);
  let i = 0;
  while (i < changed.length) {
    const first = changed[i]!;
    let last = first;
    while (i + 1 < changed.length && changed[i + 1]! - last <= 2 * context + 1) last = changed[++i]!;
    i++;
    const start = Math.max(0, first - context);
    let end = Math.min(ops.length, last + context + 1);
    if (ops[end]?.sign === '\\') end++;
    const slice = ops.slice(start, end);
    const oldLines = slice.filter((op) => op.sign === ' ' || op.sign === '-').length;
    const newLines = slice.filter((op) => op.sign === ' ' || op.sign === '+').length;
    hunks.push({
      oldStart: oldLines ? oldNo[start]! : oldNo[start]! - 1,
      oldLines,
      newStart: newLines ? newNo[start]! : newNo[start]! - 1,
      newLines,
      lines: slice.map((op) => op.sign + op.text),
    });
  }
  return { hunks, added, removed };
}

/** Display budget: hunks are capped by line count. */
export const DIFF_MAX_HUNK_LINES = 2_000;

/**
 * The `diff` display for a change (input and result displays share it): the hunks with 3 lines of context
 * and the counts. The whole texts stay out: every diff is kept in the session log, and the card, the
 * changed-files list and approvals show the hunks (the review pane reads whole files from checkpoints).
 */
export function diffDisplay(
  path: string,
  before: string,
  after: string,
): {
  kind: 'diff';
  path: string;
  hunks: Hunk[];
  added: number;
  removed: number;
  truncated?: true;
} {
  const { hunks, added, removed } = diffTexts(before, after);
  let budget = DIFF_MAX_HUNK_LINES;
  const kept: Hunk[] = [];
  let truncated = false;
  for (const hunk of hunks) {
    if (budget <= 0) {
      truncated = true;
      break;
    }
    if (hunk.lines.length > budget) {
      kept.push({ ...hunk, lines: hunk.lines.slice(0, budget) });
      truncated = true;
      break;
    }
    kept.push(hunk);
    budget -= hunk.lines.length;
  }
  return {
    kind: 'diff',
    path,
    hunks: kept,
    added,
    removed,
    ...(truncated ? { truncated: true as const } : {}),
  };
}
