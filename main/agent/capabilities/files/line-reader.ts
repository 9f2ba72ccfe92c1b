/**
 * Streaming line windows over a file: a forward read touches only the bytes up to its last line (plus,
 * for files small enough, a newline count of the rest); a tail read walks backwards from the end.
 * Memory stays bounded by the window, never by the file.
 */

/** Anything readable at an offset (a file handle, or bytes in memory). */
export interface ByteSource {
  readonly size: number;
  read(into: Buffer, position: number, length: number): Promise<number>;
}

export interface RawLine {
  /** 1-based line number, or (tail reads of files too big to count) negative: −1 is the last line. */
  n: number;
  /** Decoded text, without the line feed (a trailing `\r` is kept). */
  text: string;
  /** The line was longer than what was kept (`keepBytes`). */
  cut: boolean;
}

/** Line-ending counts over the bytes scanned. */
export interface EolStats {
  crlf: number;
  lf: number;
  /** Carriage returns not followed by a line feed. */
  cr: number;
}

export interface LineWindow {
  lines: RawLine[];
  /** Total lines in the file, or null when it was not counted (file over `countLimitBytes`). */
  totalLines: number | null;
  /** Why the window ended. */
  stop: 'lines' | 'bytes' | 'eof';
  /** Over the whole file when it was counted, else over the window. */
  eol: EolStats;
  /** The window's first line is line 1 (forward) / the tail window was trimmed at the front to fit the byte budget. */
  trimmedFront: boolean;
}

export interface WindowOptions {
  /** Lines in the window at most. */
  maxLines: number;
  /** Stop before a line whose rendering (from `renderedBytes`) would pass this budget. */
  maxBytes: number;
  renderedBytes: (line: RawLine) => number;
  /** Bytes of a line decoded at most (enough for the longest line shown). */
  keepBytes: number;
  /** Files up to this size get an exact line count (and whole-file line-ending stats). */
  countLimitBytes: number;
}

const CHUNK = 256 * 1024;
/** Tail windows up to this size are read with one call. */
const WHOLE_SPAN_BYTES = 4 * 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;

export class TextDecodeError extends Error {
  constructor(
    readonly line: number,
    readonly reason: 'nul' | 'utf8',
  ) {
    super(reason === 'nul' ? `NUL byte on line ${line}` : `invalid UTF-8 on line ${line}`);
  }
}

function decodeLine(bytes: Buffer, cut: boolean, n: number): string {
  if (bytes.includes(0)) throw new TextDecodeError(n, 'nul');
  try {
    // A cut line may end inside a multi-byte character: `stream` holds the partial tail back instead of failing.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes, { stream: cut });
  } catch {
    throw new TextDecodeError(n, 'utf8');
  }
}

class EolCounter {
  private crlf = 0;
  private feeds = 0;
  private returns = 0;
  private previous = -1;

  /** Count line feeds and carriage returns in `chunk[from, to)` (ranges must be consecutive); returns the line feeds. */
  scan(chunk: Buffer, from: number, to: number): number {
    let feeds = 0;
    for (let i = chunk.indexOf(LF, from); i !== -1 && i < to; i = chunk.indexOf(LF, i + 1)) {
      feeds++;
      if ((i === from ? this.previous : chunk[i - 1]) === CR) this.crlf++;
    }
    for (let i = chunk.indexOf(CR, from); i !== -1 && i < to; i = chunk.indexOf(CR, i + 1)) this.returns++;
    if (to > from) this.previous = chunk[to - 1]!;
    this.feeds += feeds;
    return feeds;
  }

  get stats(): EolStats {
    return { crlf: this.crlf, lf: this.feeds - this.crlf, cr: this.returns - this.crlf };
  }
}

/** Lines from `startLine` (1-based) forward. */
export async function readForward(source: ByteSource, startLine: number, options: WindowOptions): Promise<LineWindow> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  const eol = new EolCounter();
  const countAll = source.size <= options.countLimitBytes;
  const lines: RawLine[] = [];
  let rendered = 0;
  let lineNo = 1;
  let keep: Buffer[] = [];
  let keptBytes = 0;
  let lineBytes = 0;
  let stop: LineWindow['stop'] | null = null;
  let position = 0;

  const collecting = () => stop === null && lineNo >= startLine;
  const finishLine = () => {
    if (collecting()) {
      const cut = lineBytes > keptBytes;
      const line: RawLine = { n: lineNo, text: decodeLine(Buffer.concat(keep, keptBytes), cut, lineNo), cut };
      const size = options.renderedBytes(line);
      if (rendered + size > options.maxBytes && lines.length > 0) stop = 'bytes';
      else {
        lines.push(line);
        rendered += size;
        if (lines.length >= options.maxLines) stop = 'lines';
      }
    }
    keep = [];
    keptBytes = 0;
    lineBytes = 0;
    lineNo++;
  };

  scan: while (position < source.size) {
    const read = await source.read(buffer, position, Math.min(CHUNK, source.size - position));
    if (read <= 0) break;
    eol.scan(buffer, 0, read);
    position += read;
    let at = 0;
    while (at < read) {
      const found = buffer.indexOf(LF, at);
      const end = found === -1 || found >= read ? read : found;
      if (collecting()) {
        const take = Math.min(options.keepBytes - keptBytes, end - at);
        if (take > 0) {
          keep.push(Buffer.from(buffer.subarray(at, at + take)));
          keptBytes += take;
        }
      }
      lineBytes += end - at;
      if (end === read) break;
      finishLine();
      if (stop !== null && !countAll) break scan;
      at = end + 1;
    }
  }
  const atEnd = position >= source.size;
  if (atEnd && lineBytes > 0) finishLine();
  const totalLines = atEnd ? lineNo - 1 : null;
  return { lines, totalLines, stop: stop ?? 'eof', eol: eol.stats, trimmedFront: false };
}

async function lastByte(source: ByteSource): Promise<number> {
  const one = Buffer.alloc(1);
  await source.read(one, source.size - 1, 1);
  return one[0]!;
}

/**
 * The last `fromEnd` lines (then at most `maxLines` of them from the first), trimmed from the front to
 * fit the byte budget. Only line-start offsets are collected while walking back; each shown line's
 * head is then read on its own.
 */
export async function readTail(source: ByteSource, fromEnd: number, options: WindowOptions): Promise<LineWindow> {
  const size = source.size;
  if (size === 0) return { lines: [], totalLines: 0, stop: 'eof', eol: { crlf: 0, lf: 0, cr: 0 }, trimmedFront: false };
  const endsWithFeed = (await lastByte(source)) === LF;
  const contentEnd = endsWithFeed ? size - 1 : size;
  // starts[i] = offset where the i-th line from the end begins (walking back).
  const starts: number[] = [];
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = contentEnd;
  while (position > 0 && starts.length < fromEnd) {
    const from = Math.max(0, position - CHUNK);
    const length = position - from;
    await source.read(buffer, from, length);
    let at = length;
    while (at > 0 && starts.length < fromEnd) {
      const feed = buffer.lastIndexOf(LF, at - 1);
      if (feed === -1) break;
      starts.push(from + feed + 1);
      at = feed;
    }
    position = from;
  }
  if (starts.length < fromEnd && position === 0) starts.push(0);
  const windowStarts = starts.reverse();
  const windowEnds = windowStarts.map((_, i) => (i + 1 < windowStarts.length ? windowStarts[i + 1]! - 1 : contentEnd));

  const counted = size <= options.countLimitBytes;
  let firstNumber = -windowStarts.length;
  const eol = new EolCounter();
  if (counted) {
    const before = await countLines(source, windowStarts[0]!, eol);
    firstNumber = before + 1;
    await countLines(source, size, eol, windowStarts[0]);
  }

  const take = Math.min(windowStarts.length, options.maxLines);
  const lines: RawLine[] = [];
  const spanStart = windowStarts[0]!;
  const spanEnd = take ? windowEnds[take - 1]! : spanStart;
  // A window of ordinary lines is read in one go; one with huge lines, line head by line head.
  const span = spanEnd - spanStart <= WHOLE_SPAN_BYTES ? Buffer.allocUnsafe(spanEnd - spanStart) : null;
  if (span) await source.read(span, spanStart, span.length);
  const head = span ? null : Buffer.allocUnsafe(options.keepBytes);
  for (let i = 0; i < take; i++) {
    const start = windowStarts[i]!;
    const length = windowEnds[i]! - start;
    const kept = Math.min(length, options.keepBytes);
    let bytes: Buffer;
    if (span) bytes = span.subarray(start - spanStart, start - spanStart + kept);
    else {
      const read = kept > 0 ? await source.read(head!, start, kept) : 0;
      bytes = Buffer.from(head!.subarray(0, read));
    }
    const n = firstNumber + i;
    lines.push({ n, text: decodeLine(bytes, length > kept, n), cut: length > kept });
  }

  let rendered = lines.reduce((sum, l) => sum + options.renderedBytes(l), 0);
  let trimmedFront = false;
  while (rendered > options.maxBytes && lines.length > 1) {
    rendered -= options.renderedBytes(lines.shift()!);
    trimmedFront = true;
  }
  const stop: LineWindow['stop'] = trimmedFront ? 'bytes' : take < windowStarts.length ? 'lines' : 'eof';
  const totalLines = counted ? firstNumber - 1 + windowStarts.length : null;
  return { lines, totalLines, stop, eol: counted ? eol.stats : eolOfLines(lines, endsWithFeed), trimmedFront };
}

/** Line-ending counts seen in decoded lines (for windows of files too big to scan). */
function eolOfLines(lines: readonly RawLine[], lastHasFeed: boolean): EolStats {
  const stats: EolStats = { crlf: 0, lf: 0, cr: 0 };
  lines.forEach((line, i) => {
    const hasFeed = i < lines.length - 1 || lastHasFeed;
    const endsCr = !line.cut && line.text.endsWith('\r');
    const body = endsCr && hasFeed ? line.text.slice(0, -1) : line.text;
    stats.cr += body.split('\r').length - 1;
    if (hasFeed && !line.cut) {
      if (endsCr) stats.crlf++;
      else stats.lf++;
    }
  });
  return stats;
}

/** Line feeds in `[from, to)` (counted into `eol`). */
async function countLines(source: ByteSource, to: number, eol: EolCounter, from = 0): Promise<number> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let feeds = 0;
  for (let position = from; position < to; ) {
    const read = await source.read(buffer, position, Math.min(CHUNK, to - position));
    if (read <= 0) break;
    feeds += eol.scan(buffer, 0, read);
    position += read;
  }
  return feeds;
}

/** A ByteSource over bytes in memory. */
export function memorySource(bytes: Buffer): ByteSource {
  return {
    size: bytes.length,
    read: async (into, position, length) => bytes.copy(into, 0, position, Math.min(bytes.length, position + length)),
  };
}
