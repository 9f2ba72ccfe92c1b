import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from '../../../../../../test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '../../../../../../test-support/mock-steps';

let h: Awaited<ReturnType<typeof createHarness>>;
afterEach(() => h?.dispose());

describe('WordCount', () => {
  it('counts lines, words and characters', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, 'a.txt'), 'one two\nthree\n');
    h.server.enqueue(toolStep(callChunk('WordCount', { path: 'a.txt' })), textReply('done'));
    await h.run('count');
    expect(toolMessages(h)).toEqual(['a.txt: 3 lines, 3 words, 14 characters.']);
  });
});
