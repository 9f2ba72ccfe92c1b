/**
 * Read a Server-Sent Events body and yield each event's data. Blank lines end an event, `:` lines are
 * comments, multiple `data:` lines join with '\n'. A trailing event without a blank line is still yielded.
 * The body is a web stream (fetch's) or the chunks of a Node stream (node-fetch.ts: a text turn then never loads
 * Node's web streams, issue 36).
 */
export async function* readSseData(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const chunks = 'getReader' in body ? fromReader(body) : body;
  const iterator = chunks[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await iterator.next();
      finished = done === true;
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A lone '\r' at the end may be the first half of '\r\n': wait for the next chunk.
        if (!done && newline === buffer.length - 1 && buffer.endsWith('\r')) break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
      }
      if (done) break;
    }
  } finally {
    // Stopped early (the reader's lock released; a Node stream is destroyed, which closes the response).
    if (!finished) {
      try {
        await iterator.return?.();
      } catch {
        // The stream's own error, if any, is the one thrown.
      }
    }
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
  if (data.length) yield data.join('\n');
}

/** A web stream's chunks; its reader's lock is released when reading ends, early or not (the stream is not cancelled). */
async function* fromReader(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
