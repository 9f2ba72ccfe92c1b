import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { lineReader, pipeSafeStdout, quickAnswer } from './entry';

describe('pipeSafeStdout', () => {
  it('turns EPIPE (the reader went away) into one onClosed call and drops later output, instead of crashing', async () => {
    const written: string[] = [];
    let readerGone = false;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (readerGone) return callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
        written.push(chunk.toString());
        callback();
      },
    });
    let closedCalls = 0;
    const stdout = pipeSafeStdout(sink, () => closedCalls++);
    stdout.write('first\n');
    readerGone = true;
    stdout.write('second\n');
    await new Promise((resolve) => setImmediate(resolve));
    stdout.write('third\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['first\n']);
    expect(stdout.closed).toBe(true);
    expect(closedCalls).toBe(1);
  });
});

describe('quickAnswer', () => {
  it('answers --help and --version alone, and nothing else', () => {
    expect(quickAnswer(['--help'])).toContain('Usage: deft run [options] <prompt>');
    expect(quickAnswer(['-h'])).toContain('deft rewind');
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(quickAnswer(['--version'])).toBe(`deft ${version}\n`);
    expect(quickAnswer(['run', '--help'])).toBeNull();
    expect(quickAnswer(['run', 'hello'])).toBeNull();
    expect(quickAnswer([])).toBeNull();
  });
});

describe('lineReader', () => {
  it('keeps the lines that arrive before the first iteration (stream-json: the prompt is written at once)', async () => {
    const input = new Readable({ read() {} });
    const lines = lineReader(input);
    input.push('{"type":"user"}\nsecond\n');
    // The run sets up (reads its settings, opens the session) before it first asks for a line.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    input.push('third\n');
    input.push(null);
    const got: string[] = [];
    for await (const line of lines) got.push(line);
    expect(got).toEqual(['{"type":"user"}', 'second', 'third']);
  });
});
