import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { standInTools } from '#test-support/stand-in-tools';
import { createHarness } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;
const lastTool = (hh: Harness) =>
  String(
    hh.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .at(-1)!.content,
  );

async function enterPlanMode(hh: Harness): Promise<string> {
  hh.server.enqueue(toolStep(callChunk('EnterPlanMode', {})));
  await hh.run('plan it');
  const plan = hh.sessionEvents('plan.mode.changed').at(-1) as Extract<SessionEvent, { type: 'plan.mode.changed' }>;
  expect(plan.plan.active).toBe(true);
  return plan.plan.path!;
}

describe('plan mode', () => {
  it('runs only read-only tools and lets Write touch only the plan file, even in yolo mode', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'yolo', tools: () => standInTools() });
    const path = await enterPlanMode(h);
    expect(path).toBe(join(h.home, 'plans', `${path.split('/').at(-1)}`));
    expect(lastTool(h)).toContain(`Plan file: ${path}`);
    // EnterPlanMode's result told the model: no reminder repeats it, and the system prompt does not change.
    h.server.enqueue(textReply('Planning.'));
    await h.run('go on');
    const messages = h.server.requests.at(-1)!.body.messages;
    expect(reminders(messages).join('\n')).not.toContain('Plan file');
    expect(messages[0]).toEqual(h.server.requests[0]!.body.messages[0]);

    h.server.enqueue(toolStep(callChunk('Write', { path: 'src.ts', content: 'x' }, 'w1'), callChunk('Write', { path, content: '# Plan\n1. Do it' }, 'w2')));
    await h.run('write');
    const tools = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .slice(-2)
      .map((m) => String(m.content));
    expect(tools[0]).toContain('Plan mode is active, so Write cannot run');
    expect(tools[1]).toContain('Wrote');
    expect(await readFile(path, 'utf8')).toBe('# Plan\n1. Do it');
    await expect(readFile(join(h.workspace, 'src.ts'))).rejects.toThrow();
  });

  it('refuses EnterPlanMode twice and ExitPlanMode before a plan is written', async () => {
    h = await createHarness({ host: webHost, tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('ExitPlanMode', {})));
    await h.run('exit');
    expect(lastTool(h)).toContain('ExitPlanMode can only be called while plan mode is active');
    const path = await enterPlanMode(h);
    h.server.enqueue(toolStep(callChunk('EnterPlanMode', {})), toolStep(callChunk('ExitPlanMode', {})));
    await h.run('again');
    const messages = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .slice(-2)
      .map((m) => String(m.content));
    expect(messages[0]).toContain('Plan mode is already active');
    expect(messages[1]).toContain(`Write your plan to ${path} first`);
  });

  it('validates plan options: unique labels, none named like the review answers', async () => {
    h = await createHarness({ host: webHost, tools: () => standInTools() });
    const path = await enterPlanMode(h);
    await writeFile(path, '# Plan');
    h.server.enqueue(
      toolStep(callChunk('ExitPlanMode', { options: [{ label: 'Fast' }, { label: 'fast' }] })),
      toolStep(callChunk('ExitPlanMode', { options: [{ label: 'Revise' }, { label: 'B' }] })),
    );
    await h.run('exit');
    const messages = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .slice(-2)
      .map((m) => String(m.content));
    expect(messages[0]).toContain('Option labels must be unique');
    expect(messages[1]).toContain('"Revise" cannot be an option label');
  });

  it('shows the plan for review; revise keeps planning with the feedback, approve exits with the chosen option', async () => {
    h = await createHarness({ host: webHost, tools: () => standInTools() });
    const path = await enterPlanMode(h);
    await writeFile(path, '# Plan\nRefactor the parser.');
    const options = [
      { label: 'Incremental', description: 'One module at a time' },
      { label: 'Rewrite', description: 'Start over' },
    ];
    h.server.enqueue(toolStep(callChunk('ExitPlanMode', { options })), toolStep(callChunk('ExitPlanMode', { options })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'done planning' });
    const review = await waitFor(() => h.sessionEvents('approval.requested')[0] as Requested | undefined);
    expect(review).toMatchObject({ kind: 'plan_review', display: { kind: 'plan_review', plan: '# Plan\nRefactor the parser.', path, options } });
    await expect(
      h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: review.requestId, answer: { decision: 'approve', scope: 'session' } }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await h.core.handlers.answerApproval({
      sessionId: h.session.id,
      requestId: review.requestId,
      answer: { decision: 'revise', feedback: 'Add a test plan.' },
    });
    const second = await waitFor(() => h.sessionEvents('approval.requested')[1] as Requested | undefined);
    await expect(
      h.core.handlers.answerApproval({
        sessionId: h.session.id,
        requestId: second.requestId,
        answer: { decision: 'approve', scope: 'once', selectedLabel: 'Nope' },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await h.core.handlers.answerApproval({
      sessionId: h.session.id,
      requestId: second.requestId,
      answer: { decision: 'approve', scope: 'once', selectedLabel: 'Incremental' },
    });
    await h.core.turnDone(h.session.id);
    const tools = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .slice(-2)
      .map((m) => String(m.content));
    expect(tools[0]).toBe(
      `The user wants the plan revised before approving it. Their feedback: "Add a test plan.". Update the plan file ${path}, then call ExitPlanMode again. Plan mode is still on.`,
    );
    expect(tools[1]).toContain('the user approved the plan and chose the approach "Incremental" (One module at a time)');
    expect(tools[1]).toContain('## Approved Plan:\n# Plan\nRefactor the parser.');
    expect(h.sessionEvents('plan.mode.changed').at(-1)).toMatchObject({ plan: { active: false } });
  });

  it('rejecting the plan ends plan mode and tells the model not to carry it out', async () => {
    h = await createHarness({ host: webHost, tools: () => standInTools() });
    const path = await enterPlanMode(h);
    await writeFile(path, '# Plan');
    h.server.enqueue(toolStep(callChunk('ExitPlanMode', {})));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'done' });
    const review = await waitFor(() => h.sessionEvents('approval.requested')[0] as Requested | undefined);
    expect(review.display).not.toHaveProperty('options');
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: review.requestId, answer: { decision: 'reject', feedback: 'Not now.' } });
    await h.core.turnDone(h.session.id);
    expect(lastTool(h)).toBe(
      'ERROR: The user rejected the plan. Their feedback: "Not now.". Plan mode is off. Do not carry out this plan; ask the user how they want to proceed.',
    );
  });

  it('auto-approves headless, saying the user did not review it', async () => {
    h = await createHarness({ tools: () => standInTools() });
    const path = await enterPlanMode(h);
    await writeFile(path, '# Plan');
    h.server.enqueue(toolStep(callChunk('ExitPlanMode', {})));
    await h.run('done');
    expect(lastTool(h)).toContain('auto-approved and NOT reviewed by the user');
  });

  it('the window toggle turns plan mode on and off and tells the model', async () => {
    h = await createHarness({ host: webHost, tools: () => standInTools() });
    const { plan } = await h.core.handlers.setPlanMode({ sessionId: h.session.id, active: true });
    expect(plan).toMatchObject({ active: true, path: expect.stringMatching(/plans\/[a-z]+-[a-z]+-[0-9a-f]{2}\.md$/) });
    expect((await h.core.handlers.setPlanMode({ sessionId: h.session.id, active: true })).plan).toEqual(plan);
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('hello');
    // Told in the reminder before the prompt, once.
    const on = h.server.requests.at(-1)!.body.messages;
    expect(on.at(-2)).toMatchObject({
      role: 'user',
      content: expect.stringContaining(`The user wants a plan before any change.\nPlan mode is on. Plan file: ${plan.path}`),
    });
    expect(on.at(-1)).toEqual({ role: 'user', content: 'hello' });
    await h.core.handlers.setPlanMode({ sessionId: h.session.id, active: false });
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('next');
    const off = h.server.requests.at(-1)!.body.messages;
    expect(off.at(-2)).toEqual({
      role: 'user',
      content: '<system-reminder>\nPlan mode is off. You may change files again, within the permission mode.\n</system-reminder>',
    });
    expect(reminders(off).filter((r) => r.includes('Plan mode is on'))).toHaveLength(1);
    expect(off[0]).toEqual(on[0]);
  });
});
