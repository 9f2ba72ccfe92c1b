import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalAnswer, SessionEvent } from '#protocol';
import { approvalSchemas } from '#protocol';
import { DeftCore } from '#runtime/core';
import { createHarness, fastRetry, testCapabilities } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

// The goal start card's choice: run the goal as usual (the session's mode asks), or without asking (yolo
// while the goal is active, the session's own mode back when it stops).

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

type Ev<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;
const goal = () => (h.sessionEvents('goal.updated').at(-1) as Ev<'goal.updated'> | undefined)?.goal ?? null;
const modeChanges = () => (h.sessionEvents('permission.mode.changed') as Array<Ev<'permission.mode.changed'>>).map((e) => [e.previous, e.mode, e.reason]);
const approvals = () => h.sessionEvents('approval.requested') as Array<Ev<'approval.requested'>>;
const modeReminders = (request: number) => reminders(h.server.requests[request]!.body.messages).filter((r) => r.includes('Permission mode'));
const mode = async () => (await h.core.handlers.getPermissions({ sessionId: h.session.id })).mode;

async function idle(): Promise<void> {
  // A goal that held yolo gives the mode back a moment after it stops (the approvals capability announces it
  // once it has read the session's own mode), so idle also waits for that announcement.
  const modeBack = () => goal()?.mode !== 'yolo' || modeChanges().at(-1)?.[2] === 'the goal stopped';
  await waitFor(() => goal()?.status !== 'active' && h.sessionEvents('turn.started').length === h.sessionEvents('turn.ended').length && modeBack(), 20_000);
  await h.core.turnDone(h.session.id);
}

/** Send a prompt whose first step is CreateGoal and answer its start card. */
async function startGoal(answer: ApprovalAnswer): Promise<void> {
  const seen = approvals().length;
  await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'work on it' });
  const card = await waitFor(() =>
    approvals()
      .slice(seen)
      .find((a) => a.kind === 'goal_start'),
  );
  await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: card.requestId, answer });
}

describe('goal start: as usual or without asking', () => {
  it('without asking: the goal runs in yolo (protected paths and deny rules still hold), and ask comes back when it completes', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(h.home, 'settings.json'), JSON.stringify({ ...settings, permissions: { defaultMode: 'ask', deny: ['Write(secret.txt)'] } }));
    h.server.enqueue(
      toolStep(callChunk('CreateGoal', { objective: 'Write the notes' })),
      // Runs without asking now; a deny rule still blocks; a protected path still asks.
      toolStep(callChunk('Write', { path: 'notes.txt', content: 'done\n' }), callChunk('Write', { path: 'secret.txt', content: 'x' })),
      toolStep(callChunk('Write', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' })),
      toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'Notes written' })),
    );
    h.server.fallback = () => textReply('ok');
    await startGoal({ decision: 'approve', scope: 'once', goalMode: 'yolo' });
    const guarded = await waitFor(() => approvals().find((a) => a.toolName === 'Write'));
    expect(guarded.reason).toContain('protected');
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: guarded.requestId, answer: { decision: 'reject' } });
    await idle();

    expect(await readFile(join(h.workspace, 'notes.txt'), 'utf8')).toBe('done\n');
    await expect(readFile(join(h.workspace, 'secret.txt'))).rejects.toThrow();
    expect(approvals().map((a) => a.toolName)).toEqual(['CreateGoal', 'Write']);
    expect(goal()).toMatchObject({ status: 'complete' });
    const started = (h.sessionEvents('goal.updated') as Array<Ev<'goal.updated'>>)[0]!.goal;
    expect(started).toMatchObject({ status: 'active', mode: 'yolo' });
    expect(modeChanges()).toEqual([
      ['ask', 'yolo', 'while the goal runs (started without asking)'],
      ['yolo', 'ask', 'the goal stopped'],
    ]);
    expect(await mode()).toBe('ask');
    // The model read the change at the step after CreateGoal, and the way back at the next turn.
    expect(modeReminders(1).at(-1)).toContain('Permission mode: yolo while the goal runs (started without asking) — every call runs without asking');
    expect(modeReminders(1).at(-1)).toContain("The session's own mode, ask, comes back when that ends.");
    await h.run('and now?');
    const last = modeReminders(h.server.requests.length - 1);
    // Said once each: ask at the start, yolo when the goal started, ask again now.
    expect(last).toHaveLength(3);
    expect(last.at(-1)).toContain('Permission mode: ask — read-only tools run');
    // Nothing of it stays: a plain Write asks again.
    const before = approvals().length;
    h.server.enqueue(toolStep(callChunk('Write', { path: 'later.txt', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write later.txt' });
    await waitFor(() => approvals().length === before + 1);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
  });

  it('as usual: nothing changes, the Write of the goal asks', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Write the notes' })), toolStep(callChunk('Write', { path: 'notes.txt', content: 'x' })));
    h.server.fallback = () => textReply('ok');
    await startGoal({ decision: 'approve', scope: 'once' });
    const write = await waitFor(() => approvals().find((a) => a.toolName === 'Write'));
    expect(goal()).toMatchObject({ status: 'active' });
    expect(goal()).not.toHaveProperty('mode');
    expect(modeChanges()).toEqual([]);
    expect(await mode()).toBe('ask');
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'cancel' });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: write.requestId, answer: { decision: 'reject' } });
    await h.core.turnDone(h.session.id);
    expect(modeChanges()).toEqual([]);
  });

  it('gives the mode back when the budget runs out, on pause (yolo again on resume) and on cancel', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'accept-edits' });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Refactor' }), callChunk('SetGoalBudget', { value: 2, unit: 'turns' })));
    h.server.fallback = () => textReply('still going');
    await startGoal({ decision: 'approve', scope: 'once', goalMode: 'yolo' });
    await idle();
    expect(goal()).toMatchObject({ status: 'blocked', mode: 'yolo', reason: 'Stopped: its budget of 2 turns is used up.' });
    expect(modeChanges()).toEqual([
      ['accept-edits', 'yolo', 'while the goal runs (started without asking)'],
      ['yolo', 'accept-edits', 'the goal stopped'],
    ]);
    expect(await mode()).toBe('accept-edits');

    // Raise the budget by replacing the goal's budget: resume is refused while spent, so start a new one.
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Long job', replace: true })), {
      chunks: [{ text: 'slow' }, { finish: 'stop' }],
      delayMs: 300,
    });
    await startGoal({ decision: 'approve', scope: 'once', goalMode: 'yolo' });
    await waitFor(() => modeChanges().length === 3);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' });
    await waitFor(() => modeChanges().length === 4);
    expect(await mode()).toBe('accept-edits');
    await idle();
    h.server.enqueue({ chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 300 });
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' });
    await waitFor(() => modeChanges().length === 5);
    expect(await mode()).toBe('yolo');
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'cancel' });
    await waitFor(() => modeChanges().length === 6);
    await idle();
    expect(modeChanges().slice(2)).toEqual([
      ['accept-edits', 'yolo', 'while the goal runs (started without asking)'],
      ['yolo', 'accept-edits', 'the goal stopped'],
      ['accept-edits', 'yolo', 'while the goal runs (started without asking)'],
      ['yolo', 'accept-edits', 'the goal stopped'],
    ]);
    expect(await mode()).toBe('accept-edits');
    await h.core.turnDone(h.session.id);
  });

  it("the user's own switch of mode ends it: the goal goes on in that mode, also after a pause and resume", async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Careful job' })), { chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 300 });
    h.server.fallback = () => ({ chunks: [{ text: 'slow' }, { finish: 'stop' as const }], delayMs: 300 });
    await startGoal({ decision: 'approve', scope: 'once', goalMode: 'yolo' });
    await waitFor(() => modeChanges().length === 1);
    await h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'accept-edits' });
    await waitFor(() => modeChanges().length === 2);
    expect(modeChanges()[1]).toEqual(['yolo', 'accept-edits', 'the goal stopped']);
    await waitFor(() => goal()?.mode === undefined);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' });
    await idle();
    const turns = h.sessionEvents('turn.started').length;
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' });
    expect(await mode()).toBe('accept-edits');
    await waitFor(() => h.sessionEvents('turn.started').length > turns);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'cancel' });
    await idle();
    expect(modeChanges()).toHaveLength(2);
  });

  it('goalMode answers only a goal start, and the protocol refuses a mode that is not one', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write' });
    const card = await waitFor(() => approvals()[0]);
    await expect(
      h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: card.requestId, answer: { decision: 'approve', scope: 'once', goalMode: 'yolo' } }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    expect(approvalSchemas().ApprovalAnswer.safeParse({ decision: 'approve', goalMode: 'accept-edits' }).success).toBe(false);
    expect(approvalSchemas().ApprovalAnswer.safeParse({ decision: 'reject', goalMode: 'yolo' }).success).toBe(false);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    expect(modeChanges()).toEqual([]);
  });

  it('a goal that held yolo when Deft stopped is paused after the restart, and the mode is the session’s own again', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Overnight' })), { chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 400 });
    await startGoal({ decision: 'approve', scope: 'once', goalMode: 'yolo' });
    await waitFor(() => modeChanges().length === 1);
    await h.core.close();
    const restarted = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: webHost,
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: testCapabilities,
    });
    try {
      const opened = await restarted.handlers.openSession({ sessionId: h.session.id });
      const goals = opened.events.filter((e): e is Ev<'goal.updated'> => e.type === 'goal.updated');
      expect(goals.at(-1)?.goal).toMatchObject({ status: 'paused', mode: 'yolo' });
      expect((await restarted.handlers.getPermissions({ sessionId: h.session.id })).mode).toBe('ask');
    } finally {
      await restarted.close();
    }
  });
});
