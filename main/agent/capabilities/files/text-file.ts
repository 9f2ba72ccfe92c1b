import type { Environment } from '#contract/environment';
import { type FileKind, SNIFF_BYTES, sniff, utf16Bom } from './file-type';
import { type ModelView, toModelView } from './line-endings';
import { formatBytes } from '#protocol/helpers/units';
import { ToolInputError } from '#contract/tool';

/** Files larger than this are not loaded whole (Edit, Write's diff). */
export const MAX_EDIT_BYTES = 128 * 1024 * 1024;

/** Why a file that is not text cannot be read as text, and what to do instead (ReadMediaFile only for a model that reads images). */
export function notTextMessage(display: string, kind: Exclude<FileKind, { kind: 'text' }>, imageInput = true): string {
  switch (kind.kind) {
    case 'image':
      if (!imageInput)
        return `${display} is an image (${kind.format.toUpperCase()}), not text, and the configured model cannot see images. Ask the user what it shows if that matters; \`file "${display}"\` gives its size.`;
      return `${display} is an image (${kind.format.toUpperCase()}), not text. Use ReadMediaFile to look at it.`;
    case 'video':
      return `${display} is a video (${kind.format}), not text. Deft cannot show video to the model; extract still frames (for example \`ffmpeg -i "${display}" -vf fps=1 frame_%03d.png\`) and open them with ReadMediaFile.`;
    case 'binary':
      return `${display} is not readable as UTF-8 text: it is ${/^[AEIOU]/i.test(kind.format) ? 'an' : 'a'} ${kind.format}. Use a command-line tool that understands the format (e.g. pdftotext for PDF, unzip -l or tar -tf for archives, sqlite3 for databases).`;
  }
}

export function invalidUtf8Message(display: string, line?: number): string {
  return `${display} is not valid UTF-8 text${line ? ` (invalid byte sequence on line ${line})` : ''}. If it uses another encoding (Latin-1, Windows-1252, GBK, Shift-JIS…), convert a copy first, e.g. \`iconv -f WINDOWS-1252 -t UTF-8 "${display}" > converted.txt\`, and read that.`;
}

export function nulMessage(display: string, line?: number): string {
  return `${display} contains NUL bytes${line ? ` (line ${line})` : ''}, so it is binary data, not text.`;
}

/** The whole file as text in the model's view, or a refusal (binary, not UTF-8, too large). */
export async function loadTextFile(
  environment: Environment,
  real: string,
  display: string,
  size: number,
  /** The file's bytes, when they were read with the path guard's facts (one round trip over SSH). */
  read?: Buffer,
): Promise<{ raw: string; view: ModelView }> {
  if (size > MAX_EDIT_BYTES) {
    throw new ToolInputError(
      `${display} is ${formatBytes(size)}, too large to change in memory (the limit is ${formatBytes(MAX_EDIT_BYTES)}). Change it with a streaming command-line tool instead.`,
    );
  }
  const bytes = read ?? (await environment.readBytes(real));
  const kind = sniff(bytes.subarray(0, SNIFF_BYTES), real);
  if (kind.kind !== 'text' && !(kind.kind === 'image' && kind.format === 'svg')) throw new ToolInputError(notTextMessage(display, kind));
  if (utf16Bom(bytes))
    throw new ToolInputError(
      `${display} is UTF-16 text; Write and Edit change UTF-8 files only. Convert it first (e.g. \`iconv -f UTF-16 -t UTF-8\`) if the user agrees.`,
    );
  if (bytes.includes(0)) throw new ToolInputError(nulMessage(display));
  let raw: string;
  try {
    raw = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolInputError(invalidUtf8Message(display));
  }
  return { raw, view: toModelView(raw) };
}
