import type { DiffHunk } from '#protocol';
import { diffPackage } from '#infra/platform/on-demand';

type Hunk = DiffHunk;

/** A hunk line's text and whether a line break ends it (a "\ No newline" marker after it says not). */
function withBreaks(lines: readonly string[]): Array<{ sign: string; text: string }> {
  const out: Array<{ sign: string; text: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('\\')) continue;
    const noBreak = lines[i + 1]?.startsWith('\\') === true;
    out.push({ sign: line[0]!, text: line.slice(1) + (noBreak ? '' : '\n') });
  }
  return out;
}

/** The text's lines, each with its line break (the last may have none). */
function splitKeepingBreaks(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/**
 * `before` with only the accepted hunks of a diff of it applied (the hunks must come from diffing
 * `before`, in order, as diffTexts makes them). Every hunk is placed by its old line numbers, exactly.
 */
export function applyHunks(before: string, hunks: readonly Hunk[], accepted: readonly boolean[]): string {
  const lines = splitKeepingBreaks(before);
  const out: string[] = [];
  let next = 0;
  hunks.forEach((hunk, i) => {
    // A hunk that removes nothing starts *after* its oldStart line.
    const start = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
    while (next < start) out.push(lines[next++]!);
    if (accepted[i]) {
      for (const line of withBreaks(hunk.lines)) if (line.sign === ' ' || line.sign === '+') out.push(line.text);
      next += hunk.oldLines;
    }
  });
  while (next < lines.length) out.push(lines[next++]!);
  return out.join('');
}

/**
 * Take one hunk of an earlier change back out of `current`: its new lines are found in the file (where
 * they were, or moved by later edits above them) and replaced by its old lines. Null when the new lines
 * are no longer there as they were (the file changed there since).
 */
export function revertHunk(current: string, hunk: Hunk): string | null {
  const reversed: Hunk = {
    oldStart: hunk.newStart,
    oldLines: hunk.newLines,
    newStart: hunk.oldStart,
    newLines: hunk.oldLines,
    lines: reverseLines(hunk.lines),
  };
  const result = diffPackage().applyPatch(current, {
    oldFileName: undefined,
    newFileName: undefined,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [reversed],
  });
  return result === false ? null : result;
}

/** Swap a hunk's sides; a "\ No newline" marker stays after the line it belongs to. */
function reverseLines(lines: readonly string[]): string[] {
  return lines.map((line) => (line.startsWith('+') ? `-${line.slice(1)}` : line.startsWith('-') ? `+${line.slice(1)}` : line));
}
