import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { readSseData } from './sse';

function stream(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSseData(body)) out.push(data);
  return out;
}

describe('readSseData', () => {
  it('yields one data payload per event, across arbitrary chunk boundaries', async () => {
    expect(await collect(stream('data: {"a"', ':1}\n', '\ndata: [DONE]\n\n'))).toEqual(['{"a":1}', '[DONE]']);
  });
  it('handles CRLF split between chunks, comments and multi-line data', async () => {
    expect(await collect(stream(': keep-alive\r\n\r\ndata: one\r', '\ndata: two\r\n\r\n'))).toEqual(['one\ntwo']);
  });
  it('yields a final event that lacks the blank line', async () => {
    expect(await collect(stream('data: tail'))).toEqual(['tail']);
  });
  it('decodes UTF-8 split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo 世界\n\n');
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 8));
        c.enqueue(bytes.slice(8));
        c.close();
      },
    });
    expect(await collect(body)).toEqual(['héllo 世界']);
  });
  it('reads a Node stream the same (node-fetch), and destroys it when the reader stops early', async () => {
    const parts = ['data: {"a"', ':1}\n', '\ndata: one\r', '\ndata: two\r\n\r\n', 'data: tail'];
    const node = () => Readable.from(parts.map((part) => Buffer.from(part)));
    const out: string[] = [];
    for await (const data of readSseData(node())) out.push(data);
    expect(out).toEqual(await collect(stream(...parts)));
    expect(out).toEqual(['{"a":1}', 'one\ntwo', 'tail']);
    const body = node();
    for await (const data of readSseData(body)) {
      expect(data).toBe('{"a":1}');
      break;
    }
    expect(body.destroyed).toBe(true);
  });
});
