import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEventOf } from '#protocol';
import { approvalsCapability } from '../approvals/capability';
import { filesCapability } from '../files/capability';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '#test-support/mock-steps';
import { eventually } from '#test-support/processes';
import { reviewCapability } from './capability';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
const edited = lines.replace('line 2\n', 'LINE 2\n').replace('line 25\n', 'LINE 25\n');

/** A core with review mode on, in ask mode, as a desktop or web window runs it. */
async function reviewing() {
  const harness = await createHarness({ capabilities: [approvalsCapability, filesCapability, reviewCapability], permissionMode: 'ask', host: webHost });
  await writeFile(join(harness.workspace, 'long.txt'), lines);
  expect(await harness.core.handlers.setReviewMode({ enabled: true })).toEqual({ enabled: true });
  return harness;
}

async function requested(h: Harness, count: number): Promise<SessionEventOf<'change.review.requested'>['request']> {
  const events = await eventually(() => {
    const found = h.sessionEvents('change.review.requested');
    expect(found).toHaveLength(count);
    return found;
  }, 15_000);
  return (events.at(-1) as SessionEventOf<'change.review.requested'>).request;
}

describe('review mode', { timeout: 60_000 }, () => {
  it('shows a Write as hunks without asking for approval, writes only the accepted ones and tells the model exactly what was applied', async () => {
    h = await reviewing();
    h.server.enqueue(toolStep(callChunk('Read', { path: 'long.txt' })), toolStep(callChunk('Write', { path: 'long.txt', content: edited })), textReply('done'));
    const turn = h.run('edit it');
    const request = await requested(h, 1);
    expect(request).toMatchObject({ toolName: 'Write', path: 'long.txt', created: false, added: 2, removed: 2 });
    expect(request.hunks).toHaveLength(2);
    expect(h.sessionEvents('approval.requested')).toHaveLength(0); // the review is the approval
    expect(await readFile(join(h.workspace, 'long.txt'), 'utf8')).toBe(lines); // nothing written yet
    await h.core.handlers.answerChangeReview({ sessionId: h.session.id, requestId: request.requestId, accepted: [true, false], feedback: 'keep line 25' });
    await turn;
    expect(await readFile(join(h.workspace, 'long.txt'), 'utf8')).toBe(lines.replace('line 2\n', 'LINE 2\n'));
    const told = toolMessages(h).at(-1)!;
    expect(told).toContain('applied hunk 1 of 2; rejected 2');
    expect(told).toContain('-line 25\n+LINE 25');
    expect(told).toContain("The user's note: keep line 25");
    expect(h.sessionEvents('change.review.resolved').at(-1)).toMatchObject({ requestId: request.requestId, accepted: [true, false] });
  });

  it('writes nothing when every hunk is rejected, refuses a wrong number of decisions, and gives up when the turn is stopped', async () => {
    h = await reviewing();
    h.server.enqueue(
      toolStep(callChunk('Read', { path: 'long.txt' })),
      toolStep(callChunk('Edit', { path: 'long.txt', old_string: 'line 7\n', new_string: 'seven\n' })),
      textReply('ok'),
    );
    const turn = h.run('edit');
    const request = await requested(h, 1);
    await expect(h.core.handlers.answerChangeReview({ sessionId: h.session.id, requestId: request.requestId, accepted: [true, true] })).rejects.toThrow(
      /1 expected, 2 given/,
    );
    await h.core.handlers.answerChangeReview({ sessionId: h.session.id, requestId: request.requestId, accepted: [false] });
    await turn;
    expect(await readFile(join(h.workspace, 'long.txt'), 'utf8')).toBe(lines);
    expect(toolMessages(h).at(-1)).toMatch(/^ERROR: The user reviewed your change to long.txt and rejected it: nothing was written\./);

    h.server.enqueue(toolStep(callChunk('Edit', { path: 'long.txt', old_string: 'line 8\n', new_string: 'eight\n' })), textReply('ok'));
    const second = h.run('again');
    await requested(h, 2);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    await second;
    expect(h.sessionEvents('change.review.resolved').at(-1)).toMatchObject({ cancelled: true });
    expect(await readFile(join(h.workspace, 'long.txt'), 'utf8')).toBe(lines);
  });

  it('is off by default, and never holds a headless run', async () => {
    h = await createHarness({ capabilities: [approvalsCapability, filesCapability, reviewCapability] });
    expect(await h.core.handlers.getReviewMode({})).toEqual({ enabled: false });
    await h.core.handlers.setReviewMode({ enabled: true });
    await writeFile(join(h.workspace, 'a.txt'), 'a\n');
    h.server.enqueue(toolStep(callChunk('Write', { path: 'b.txt', content: 'new\n' })), textReply('ok'));
    await h.run('write'); // host 'cli': written at once
    expect(await readFile(join(h.workspace, 'b.txt'), 'utf8')).toBe('new\n');
    expect(h.sessionEvents('change.review.requested')).toHaveLength(0);
  });
});
