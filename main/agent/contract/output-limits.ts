/** The limits every tool result obeys (the runtime caps what a tool did not), and the capping tools use themselves. */
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
 * The first `length` UTF-16 units of `text`, one fewer when the cut would split a surrogate pair: a lone
 * surrogate is not valid Unicode, and servers that reject it would refuse every later request too.
 */
export function headOf(text: string, length: number): string {
  if (length <= 0) return '';
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
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
      line = headOf(line, maxLine) + TRUNCATION_MARKER;
      longLines++;
      truncated = true;
    }
    const piece = hasBreak ? line + '\n' : line;
    if (out.length + piece.length > maxChars) {
      out += headOf(piece, maxChars - out.length) + TRUNCATION_MARKER;
      return { text: out, truncated: true, longLines };
    }
    out += piece;
    start = end + 1;
  }
  return { text: out, truncated, longLines };
}
