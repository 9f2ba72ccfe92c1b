import type { ToolResultDisplay } from '../schemas/display';

// Zod-free (the renderer imports it): how a Read result keeps its text once, in its output.
type FileContentDisplay = Extract<ToolResultDisplay, { kind: 'file_content' }>;

/** Read's output without each line's "N<tab>" prefix: the text its card shows. */
export function fileTextFromOutput(output: string): string {
  return output
    .split('\n')
    .map((line) => {
      const tab = line.indexOf('\t');
      return tab > 0 && /^\d+$/.test(line.slice(0, tab)) ? line.slice(tab + 1) : line;
    })
    .join('\n');
}

/**
 * A result display to record: a file_content display leaves its text out when the output carries exactly
 * that text (numbered), so the log and the wire keep a file's text once. Anything else is kept as it is.
 */
export function slimResultDisplay(display: ToolResultDisplay, output: string): ToolResultDisplay {
  if (display.kind !== 'file_content' || display.content === undefined || fileTextFromOutput(output) !== display.content) return display;
  const { content: _content, ...rest } = display;
  return rest;
}

/** The text a file_content display shows: its own, or the one its result's output carries. */
export function fileTextOf(display: FileContentDisplay, output: string): string {
  return display.content ?? fileTextFromOutput(output);
}
