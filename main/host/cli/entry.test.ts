import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pipeSafeStdout } from './entry';

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
