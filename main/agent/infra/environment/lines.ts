import type { RandomReader } from '#contract/environment';

const CHUNK = 256 * 1024;

/** A file's lines, read in chunks through a positional reader (any backend): memory stays bounded by the longest line. */
export async function* linesOf(open: () => Promise<RandomReader>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = await open();
  try {
    const buffer = Buffer.allocUnsafe(CHUNK);
    const decoder = new TextDecoder('utf-8');
    let partial = '';
    for (let position = 0; ; ) {
      signal?.throwIfAborted();
      const read = await reader.read(buffer, position, CHUNK);
      if (read <= 0) break;
      position += read;
      const lines = (partial + decoder.decode(buffer.subarray(0, read), { stream: true })).split('\n');
      partial = lines.pop()!;
      for (const line of lines) yield line;
    }
    partial += decoder.decode();
    if (partial) yield partial;
  } finally {
    await reader.close();
  }
}
