import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Goal, SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const goal = (hh: Harness) => (hh.sessionEvents('goal.updated').at(-1) as Extract<SessionEvent, { type: 'goal.updated' }> | undefined)?.goal ?? null;
const goalTurns = (hh: Harness) => hh.sessionEvents('turn.started').filter((e) => e.type === 'turn.started' && e.origin === 'goal');
const toolText = (hh: Harness) => hh.server.requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));

/** Wait until the goal stopped (not active) and every turn has ended (goal continuations start right after a turn ends). */
async function idle(hh: Harness): Promise<void> {
  await waitFor(() => {
    const started = hh.sessionEvents('turn.started').length;
    return goal(hh)?.status !== 'active' && started === hh.sessionEvents('turn.ended').length;
  }, 20_000);
  await hh.core.turnDone(hh.session.id);
}

describe('goals', () => {
  it('asks to start a goal, continues turn after turn, and stops when the model marks it complete', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    h.server.enqueue(
      toolStep(callChunk('CreateGoal', { objective: 'Make the tests pass', completionCriterion: 'npm test exits 0' })),
      textReply('Started.'),
      textReply('Working.'),
      toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'All green' })),
      textReply('Done: all tests pass.'),
    );
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'make the tests pass' });
    const request = await waitFor(() => h.sessionEvents('approval.requested')[0] as Extract<SessionEvent, { type: 'approval.requested' }> | undefined);
    expect(request).toMatchObject({
      kind: 'goal_start',
      toolName: 'CreateGoal',
      display: { kind: 'goal_start', objective: 'Make the tests pass', completionCriterion: 'npm test exits 0' },
    });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } });
    await idle(h);
    expect(goalTurns(h)).toHaveLength(2);
    expect(goalTurns(h)[0]).toMatchObject({ text: 'Continue the goal: Make the tests pass' });
    const continuation = h.server.requests[2]!.body.messages.at(-1)!;
    expect(continuation.content).toContain('<goal-continuation>\nObjective: Make the tests pass\nCompletion criterion: npm test exits 0');
    // Three turns worked on it: the one that created it, the continuation, and the one in which it completed.
    expect(goal(h)).toMatchObject({ status: 'complete', reason: 'All green', used: { turns: 3 } });
    // UpdateGoal "complete" ended the turn: the answer queued after it was never asked for.
    expect(h.server.requests).toHaveLength(4);
    expect(h.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
    // The goal reached the model through CreateGoal's result and the continuation prompts, never the system prompt.
    expect(new Set(h.server.requests.map((r) => JSON.stringify(r.body.messages[0])))).toHaveProperty('size', 1);
    expect(h.server.requests.flatMap((r) => reminders(r.body.messages)).filter((r) => r.includes('Goal ('))).toEqual([]);
  });

  it('UpdateGoal complete and an exhausted SetGoalBudget stop the rest of the step and end the turn', async () => {
    h = await createHarness();
    h.server.enqueue(
      toolStep(callChunk('CreateGoal', { objective: 'Ship it' })),
      toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'Shipped.' }), callChunk('Write', { path: 'after.txt', content: 'x' })),
    );
    h.server.fallback = () => textReply('never asked');
    await h.run('go');
    await idle(h);
    expect(h.server.requests).toHaveLength(2);
    expect(goal(h)).toMatchObject({ status: 'complete', reason: 'Shipped.' });
    const results = h.sessionEvents('tool.call.result').slice(-2) as Array<Extract<SessionEvent, { type: 'tool.call.result' }>>;
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ['UpdateGoal', false],
      ['Write', true],
    ]);
    expect(results[1]!.output).toMatch(/^Skipped because a previous call \(UpdateGoal\) stopped the batch/);
    await expect(readFile(join(h.workspace, 'after.txt'))).rejects.toThrow();
    expect(h.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });

    h.server.enqueue(
      {
        chunks: [
          callChunk('CreateGoal', { objective: 'Budgeted', replace: true }),
          { finish: 'tool_calls' },
          { usage: { prompt_tokens: 400, completion_tokens: 10 } },
        ],
      },
      {
        chunks: [
          callChunk('SetGoalBudget', { value: 100, unit: 'tokens' }),
          callChunk('Write', { path: 'later.txt', content: 'x' }),
          { finish: 'tool_calls' },
          { usage: { prompt_tokens: 500, completion_tokens: 10 } },
        ],
      },
    );
    const before = h.server.requests.length;
    await h.run('again');
    await idle(h);
    expect(h.server.requests.length - before).toBe(2);
    expect(goal(h)).toMatchObject({ status: 'blocked', reason: expect.stringContaining('Budget used up') });
    expect(String((h.sessionEvents('tool.call.result').at(-1) as Extract<SessionEvent, { type: 'tool.call.result' }>).output)).toMatch(
      /^Skipped because a previous call \(SetGoalBudget\)/,
    );
    await expect(readFile(join(h.workspace, 'later.txt'))).rejects.toThrow();
  });

  it("tells the model of the user's pause, resume and cancel once each, in a reminder", async () => {
    h = await createHarness({ host: webHost });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Long job' })), { chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 150 });
    h.server.fallback = () => textReply('ok');
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'start' });
    await waitFor(() => goalTurns(h).length === 1, 15_000);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' });
    await idle(h);
    await h.run('what now?');
    h.server.enqueue(toolStep(callChunk('UpdateGoal', { status: 'blocked', note: 'Need a key' })));
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' });
    await idle(h);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'cancel' });
    await h.run('and now?');
    const said = reminders(h.server.requests.at(-1)!.body.messages).filter((r) => r.includes('goal') || r.includes('Goal'));
    expect(said).toEqual([
      expect.stringMatching(/^<system-reminder>\nGoal \(paused\):\nObjective: Long job\n[\s\S]*The goal is paused \(Paused by the user\.\)/),
      expect.stringMatching(/Goal \(active\):[\s\S]*when this turn ends Deft starts the next one itself/),
      '<system-reminder>\nThere is no goal any more: the user cancelled it. Stop working toward it.\n</system-reminder>',
    ]);
  });

  it('stops at the turn budget and marks the goal blocked', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Refactor' }), callChunk('SetGoalBudget', { value: 2.4, unit: 'turns' })));
    h.server.fallback = () => textReply('still going');
    await h.run('refactor everything');
    await idle(h);
    expect(goalTurns(h)).toHaveLength(1);
    expect(goal(h)).toMatchObject({ status: 'blocked', budget: { turns: 2 }, used: { turns: 2 }, reason: 'Stopped: its budget of 2 turns is used up.' });
  });

  it('counts the turn in which a goal completes, even when it is the turn that created it', async () => {
    h = await createHarness();
    h.server.enqueue(
      { chunks: [...toolStep(callChunk('CreateGoal', { objective: 'One shot' })).chunks!, { usage: { prompt_tokens: 100, completion_tokens: 10 } }] },
      {
        chunks: [...toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'Done' })).chunks!, { usage: { prompt_tokens: 300, completion_tokens: 20 } }],
      },
      textReply('All done.', 50),
    );
    await h.run('do it in one go');
    await idle(h);
    expect(goal(h)).toMatchObject({ status: 'complete', used: { turns: 1, tokens: 320 } });
  });

  it('counts tokens only while the goal is active and stops at the token budget', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Tokens' }), callChunk('SetGoalBudget', { value: 250, unit: 'tokens' })));
    h.server.fallback = () => textReply('more', 100);
    await h.run('go');
    await idle(h);
    const g = goal(h)!;
    expect(g.status).toBe('blocked');
    expect(g.used.tokens).toBeGreaterThanOrEqual(250);
    expect(g.reason).toContain('250 tokens');
  });

  it('stops at the time budget (1 s to 24 h) and rejects budgets out of range', async () => {
    let clock = 1_000_000;
    h = await createHarness({ now: () => clock });
    h.server.enqueue(
      toolStep(
        callChunk('CreateGoal', { objective: 'Timed' }),
        callChunk('SetGoalBudget', { value: 0.5, unit: 'seconds' }),
        callChunk('SetGoalBudget', { value: 25, unit: 'hours' }),
        callChunk('SetGoalBudget', { value: 2, unit: 'minutes' }),
      ),
    );
    h.server.fallback = () => {
      clock += 70_000;
      return textReply('tick');
    };
    await h.run('go');
    await idle(h);
    const tools = toolText(h);
    expect(tools.some((t) => t.includes('A time budget must be between 1 second and 24 hours; 0.5 seconds is not.'))).toBe(true);
    expect(tools.some((t) => t.includes('25 hours is not'))).toBe(true);
    expect(goal(h)).toMatchObject({ status: 'blocked', budget: { timeMs: 120_000 }, reason: 'Stopped: its time budget of 2 min is used up.' });
  });

  it('pauses, resumes and cancels from the window', async () => {
    h = await createHarness({ host: webHost });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Long job' })), textReply('turn 1'));
    let turns = 0;
    h.server.fallback = () => {
      turns++;
      return turns === 1 ? { chunks: [{ text: 'slow' }, { finish: 'stop' as const }], delayMs: 150 } : textReply(`turn ${turns}`);
    };
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'start' });
    await waitFor(() => goalTurns(h).length === 1, 15_000);
    const paused = await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' });
    expect(paused.goal).toMatchObject({ status: 'paused', reason: 'Paused by the user.' });
    await idle(h);
    expect(goalTurns(h)).toHaveLength(1);
    await expect(h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' })).rejects.toMatchObject({ code: 'invalid_request' });

    h.server.enqueue(toolStep(callChunk('UpdateGoal', { status: 'blocked', note: 'Need credentials' })), textReply('Blocked.'));
    const resumed = await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' });
    expect(resumed.goal?.status).toBe('active');
    await idle(h);
    expect(goalTurns(h)).toHaveLength(2);
    expect(goal(h)).toMatchObject({ status: 'blocked', reason: 'Need credentials' });

    expect(await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'cancel' })).toEqual({ goal: null });
    expect(goal(h)).toBeNull();
    await expect(h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('pauses the goal when a turn fails or is stopped', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Fragile' })), { status: 400, body: '{"error":{"message":"bad request"}}' });
    await h.run('go');
    await idle(h);
    expect(goal(h)).toMatchObject({ status: 'paused', reason: expect.stringContaining('Paused after an error') });

    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'resume' });
    h.server.fallback = () => ({ chunks: [{ text: 'slow '.repeat(50) }, { finish: 'stop' as const }], delayMs: 200 });
    await waitFor(() => h.sessionEvents('step.started').length >= 3);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    await idle(h);
    expect(goal(h)).toMatchObject({ status: 'paused', reason: 'Paused: the turn was stopped.' });
  });

  it('stops a goal without a turn budget at the default cap', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'Forever' })));
    h.server.fallback = () => textReply('again');
    await h.run('go');
    await idle(h);
    expect(goal(h)).toMatchObject({ status: 'blocked', used: { turns: 50 }, reason: expect.stringContaining('the limit for a goal without a turn budget') });
  });

  it('refuses a second goal unless replace is set, and the model cannot resume a paused goal', async () => {
    h = await createHarness({ host: webHost });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'First' })), { chunks: [{ text: 'x' }, { finish: 'stop' }], delayMs: 100 });
    h.server.fallback = () => textReply('idle');
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    await waitFor(() => goalTurns(h).length === 1, 15_000);
    await h.core.handlers.setGoalStatus({ sessionId: h.session.id, action: 'pause' });
    await idle(h);
    h.server.enqueue(
      toolStep(callChunk('CreateGoal', { objective: 'Second' }), callChunk('UpdateGoal', { status: 'active' }), callChunk('GetGoal', {})),
      textReply('ok'),
    );
    await h.run('again');
    const tools = toolText(h).slice(-3);
    expect(tools[0]).toContain('A goal already exists (paused): "First". Pass replace: true');
    expect(tools[1]).toContain('The user paused this goal; only they can resume it.');
    expect(JSON.parse(tools[2]!) as Goal).toMatchObject({ objective: 'First', status: 'paused' });
  });

  it('cannot start a goal headless in ask mode, and starts one in yolo mode without asking', async () => {
    h = await createHarness({ permissionMode: 'ask' });
    h.server.enqueue(toolStep(callChunk('CreateGoal', { objective: 'x' })), textReply('ok'));
    await h.run('go');
    expect(toolText(h)[0]).toContain('CreateGoal needs approval');
    expect(toolText(h)[0]).toContain('"CreateGoal"');
    expect(goal(h)).toBeNull();
  });
});
