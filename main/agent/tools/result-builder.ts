export const MAX_OUTPUT_CHARS = 50_000;
export const MAX_LINE_LENGTH = 2_000;
export const TRUNCATION_MARKER = '[...truncated]';

export interface CappedText {
  text: string;
  truncated: boolean;
  /** How many lines were cut at the line-length cap. */
  longLines: number;
}

/**
 * Cap text for the model: each line at `maxLineLength` (cut lines end with the marker), the whole at
 * `maxChars` (one marker, then nothing more).
 */
export function capText(text: string, options: { maxChars?: number; maxLineLength?: number | null } = {}): CappedText {
  const maxChars = options.maxChars ?? MAX_OUTPUT_CHARS;
  const maxLine = options.maxLineLength === undefined ? MAX_LINE_LENGTH : options.maxLineLength;
  let out = '';
  let truncated = false;
  let longLines = 0;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    const hasBreak = end >= 0;
    if (!hasBreak) end = text.length;
    let line = text.slice(start, end);
    if (maxLine !== null && line.length > maxLine) {
      line = line.slice(0, maxLine) + TRUNCATION_MARKER;
      longLines++;
      truncated = true;
    }
    const piece = hasBreak ? line + '\n' : line;
    if (out.length + piece.length > maxChars) {
      out += piece.slice(0, Math.max(0, maxChars - out.length)) + TRUNCATION_MARKER;
      return { text: out, truncated: true, longLines };
    }
    out += piece;
    start = end + 1;
  }
  return { text: out, truncated, longLines };
}
