import type { Environment } from '#contract/environment';
import { z } from 'zod';
import type { FileTracker } from '../../file-state';
import { SNIFF_BYTES, sniff, utf16Bom } from '../../file-type';
import { type ByteSource, type LineWindow, type RawLine, TextDecodeError, memorySource, readForward, readTail } from '../../line-reader';
import { lineEndingStyle } from '../../line-endings';
import { invalidUtf8Message, notTextMessage, nulMessage } from '../../text-file';
import { PREFETCH_BYTES, asToolError, existingFile, guard, pathRules } from '../../tool-support';
import { formatBytes } from '#protocol/helpers/units';
import { type Tool, type ToolResult, ToolInputError, access, defineTool, renderDescription } from '#contract/tool';
import { headOf } from '#contract/output-limits';
import template from './read.md?raw';
import { toolInput, type SchemaOf } from '#contract/tool-input';

export const MAX_LINES = 1_000;
export const MAX_BYTES = 100 * 1024;
export const MAX_LINE_LENGTH = 2_000;
/** Files up to this size get an exact line count; beyond it a read touches only the lines it shows. */
export const COUNT_LIMIT_BYTES = 64 * 1024 * 1024;
/** UTF-16 files are transcoded in memory up to this size. */
const TRANSCODE_MAX_BYTES = 10 * 1024 * 1024;

const input = toolInput('Read', () =>
  z.object({
    path: z.string().describe('The file to read: relative to the workspace, or absolute.'),
    line_offset: z
      .number()
      .int()
      .min(-1000)
      .refine((v) => v !== 0, 'line_offset must be a line number (1 or more) or, to read the end of the file, from -1000 to -1; 0 is not a line')
      .optional()
      .describe('First line to read (1-based). Negative reads the last lines: -100 is the last 100 lines. Default 1.'),
    n_lines: z.number().int().min(1).optional().describe(`How many lines to read (at most ${MAX_LINES}). Default ${MAX_LINES}.`),
  }),
);

/** How a line is shown to the model: the CR handling depends on the file's line-ending style. */
function shownText(line: RawLine, crMode: 'strip' | 'visible' | 'keep'): { text: string; cut: boolean } {
  let text = line.text;
  if (crMode === 'strip' && text.endsWith('\r')) text = text.slice(0, -1);
  else if (crMode === 'visible') text = text.replace(/\r/g, '\\r');
  const cut = line.cut || text.length > MAX_LINE_LENGTH;
  return { text: cut ? `${headOf(text, MAX_LINE_LENGTH)}...` : text, cut };
}

// Counted conservatively (every CR as the two characters `\r`) so the budget holds whatever the style.
const renderedBytes = (line: RawLine) => Buffer.byteLength(`${line.n}\t${line.text.slice(0, MAX_LINE_LENGTH + 1)}\n`) + (line.text.split('\r').length - 1);

/** Refuses what is not text; the UTF-16 encoding when the header says so. */
function textKind(header: Buffer, real: string, display: string, size: number, imageInput: boolean): 'utf-16le' | 'utf-16be' | null {
  const kind = sniff(header, real);
  if (kind.kind !== 'text' && !(kind.kind === 'image' && kind.format === 'svg')) throw new ToolInputError(notTextMessage(display, kind, imageInput));
  const bom = utf16Bom(header);
  if (bom && size > TRANSCODE_MAX_BYTES) {
    throw new ToolInputError(
      `${display} is UTF-16 text of ${formatBytes(size)}; Read transcodes UTF-16 up to ${formatBytes(TRANSCODE_MAX_BYTES)}. Convert it first, e.g. \`iconv -f UTF-16 -t UTF-8 "${display}" > converted.txt\`.`,
    );
  }
  return bom;
}

/** The same from bytes already read whole (with the path's facts, in one round trip). */
function sourceOf(bytes: Buffer, real: string, display: string, imageInput: boolean): { source: ByteSource; close: () => Promise<void>; transcoded?: string } {
  const bom = textKind(bytes.subarray(0, SNIFF_BYTES), real, display, bytes.length, imageInput);
  if (!bom) return { source: memorySource(bytes), close: async () => {} };
  const text = new TextDecoder(bom).decode(bytes);
  return { source: memorySource(Buffer.from(text, 'utf8')), close: async () => {}, transcoded: bom.toUpperCase() };
}

async function openSource(
  environment: Environment,
  real: string,
  display: string,
  size: number,
  imageInput: boolean,
): Promise<{ source: ByteSource; close: () => Promise<void>; transcoded?: string }> {
  const handle = await environment.openRead(real);
  try {
    const header = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    if (header.length) await handle.read(header, 0, header.length);
    const bom = textKind(header, real, display, size, imageInput);
    if (bom) {
      await handle.close();
      const text = new TextDecoder(bom).decode(await environment.readBytes(real));
      return { source: memorySource(Buffer.from(text, 'utf8')), close: async () => {}, transcoded: bom.toUpperCase() };
    }
    return { source: { size, read: (into, position, length) => handle.read(into, position, length) }, close: () => handle.close() };
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

function statusNote(
  window: LineWindow,
  shown: { n: number; cut: boolean }[],
  requested: number,
  crMode: 'strip' | 'visible' | 'keep',
  extra: string[],
): string {
  const parts: string[] = [];
  const first = shown[0]?.n;
  const last = shown.at(-1)?.n;
  parts.push(`${shown.length} lines read from file starting from line ${first ?? '-'}.`);
  if (window.totalLines !== null) parts.push(`Total lines in file: ${window.totalLines}.`);
  else parts.push('Total lines in file: not counted (the file is too large to count quickly).');
  const next = last !== undefined && last !== -1 ? ` Continue with line_offset=${last + 1}.` : '';
  if (window.trimmedFront)
    parts.push(`Max ${MAX_BYTES} bytes reached: the earliest of the requested lines were dropped; read them with a positive line_offset.`);
  else if (window.stop === 'bytes') parts.push(`Max ${MAX_BYTES} bytes reached.${next}`);
  else if (window.stop === 'lines') parts.push(requested >= MAX_LINES ? `Max ${MAX_LINES} lines reached.${next}` : `More lines follow.${next}`);
  else parts.push('End of file reached.');
  const cut = shown.filter((l) => l.cut).map((l) => l.n);
  if (cut.length) parts.push(`Lines [${cut.slice(0, 20).join(', ')}${cut.length > 20 ? ', …' : ''}] were truncated to ${MAX_LINE_LENGTH} characters.`);
  if (first !== undefined && first < 0)
    parts.push('Line numbers are counted from the end of the file (-1 is the last line); pass one as line_offset to read from there.');
  if (crMode === 'visible') {
    const { crlf, lf, cr } = window.eol;
    parts.push(
      `This file mixes line endings (${crlf} CRLF, ${lf} LF, ${cr} lone CR); carriage returns are shown as \\r. In Edit, write them as real carriage returns (JSON "\\r"), exactly where they appear.`,
    );
  }
  parts.push(...extra);
  return `<system>${parts.join(' ')}</system>`;
}

/** Read; its description points images to ReadMediaFile only when the model reads images (and so has that tool). */
export function readTool(files: FileTracker, options: { imageInput?: boolean } = {}): Tool<SchemaOf<typeof input>> {
  const description = renderDescription(template, {
    images: options.imageInput === false ? 'for images (the configured model cannot see them)' : 'for images (use ReadMediaFile)',
  });
  return defineTool({
    name: 'Read',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    async resolveExecution(args, env) {
      // A file that fits in one answer comes with the guard's facts where the machine can (one round trip over SSH).
      const path = await guard(env, args.path, 'read', { prefetch: PREFETCH_BYTES });
      // An earlier call of the step may change it (one that declares no writes: an MCP tool, a command): read it when run.
      const prefetched = env.changedEarlier?.(path.real) === true ? null : path.content;
      const from = args.line_offset === undefined ? '' : args.line_offset < 0 ? ` (last ${-args.line_offset} lines)` : ` from line ${args.line_offset}`;
      return {
        accesses: access.readFile(path.real),
        description: `Read ${path.display}${from}`,
        display: { kind: 'file_io', operation: 'read', path: path.display, ...(from ? { detail: from.trim() } : {}) },
        ...pathRules('Read', path),
        readOnly: true,
        execute: () =>
          asToolError(async (): Promise<ToolResult> => {
            // Read with the guard's facts, if nothing since may have changed it (an earlier call of the step, a command).
            const read = prefetched?.current() ? prefetched : null;
            const stats = read ? read.info : await existingFile(env.environment, path, 'Check the path; Glob finds files by name.');
            const requested = Math.min(args.n_lines ?? MAX_LINES, MAX_LINES);
            const { source, close, transcoded } = read
              ? sourceOf(read.bytes, path.real, path.display, env.capabilities.imageInput)
              : await openSource(env.environment, path.real, path.display, stats.size, env.capabilities.imageInput);
            let window: LineWindow;
            try {
              const options = {
                maxLines: requested,
                maxBytes: MAX_BYTES,
                renderedBytes,
                keepBytes: MAX_LINE_LENGTH * 4 + 4,
                countLimitBytes: COUNT_LIMIT_BYTES,
              };
              window =
                args.line_offset !== undefined && args.line_offset < 0
                  ? await readTail(source, -args.line_offset, options)
                  : await readForward(source, args.line_offset ?? 1, options);
            } catch (error) {
              if (error instanceof TextDecodeError)
                throw new ToolInputError(error.reason === 'nul' ? nulMessage(path.display, error.line) : invalidUtf8Message(path.display, error.line));
              throw error;
            } finally {
              await close();
            }
            files.record(path.real, stats);
            // Its language server (if any) starts and opens it now, so a later edit is checked without a cold start.
            env.codeChecks?.touched(path.real);
            if (stats.size === 0) {
              return {
                output: '',
                note: '<system>The file is empty (0 bytes).</system>',
                display: { kind: 'file_content', path: path.display, content: '', totalLines: 0 },
              };
            }
            if (!window.lines.length) {
              throw new ToolInputError(
                `${path.display} has ${window.totalLines ?? 'fewer'} lines; line_offset ${args.line_offset} is past its end. Read from line_offset=1, or use a negative line_offset to read its last lines.`,
              );
            }
            const style = lineEndingStyle(window.eol);
            const crMode = style === 'crlf' ? 'strip' : style === 'mixed' ? 'visible' : 'keep';
            const shown = window.lines.map((line) => ({ n: line.n, ...shownText(line, crMode) }));
            const extra: string[] = [];
            if (transcoded) extra.push(`The file is ${transcoded} text, shown transcoded to UTF-8; Write and Edit cannot change it in place.`);
            const note = statusNote(window, shown, requested, crMode, extra);
            return {
              output: shown.map((l) => `${l.n}\t${l.text}`).join('\n'),
              note,
              truncated: true,
              display: {
                kind: 'file_content',
                path: path.display,
                content: shown.map((l) => l.text).join('\n'),
                range: { start: shown[0]!.n, end: shown.at(-1)!.n },
                ...(window.totalLines !== null ? { totalLines: window.totalLines } : {}),
                ...(window.stop !== 'eof' || shown.some((l) => l.cut) ? { truncated: true } : {}),
              },
            };
          }),
      };
    },
  });
}
