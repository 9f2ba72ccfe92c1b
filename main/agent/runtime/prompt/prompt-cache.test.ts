import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '#test-support/mock-model-server';
import { prefixBreak, prefixBreaks, promptSegments } from '#test-support/request-prefix';
import { defaultCapabilities } from '../../capabilities';
import { put, skillMd } from '#test-support/skills';
import type { Tool } from '#contract/tool';
import { createHarness, fastRetry } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep } from '#test-support/mock-steps';
import { echoTool, waitTool } from '#test-support/tools';
import { waitFor } from '#test-support/wait';
import { DeftCore } from '../core';
import { cliHost, webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

/** Every reminder the model has read, across the session's requests, counted once each (they are never rewritten). */
function saidOnce(requests: readonly RecordedRequest[], needle: string): number {
  return reminders(requests.at(-1)!.body.messages).filter((r) => r.includes(needle)).length;
}

const systemOf = (request: RecordedRequest) => promptSegments(request).prefix[1];
const todo = (n: number) => callChunk('TodoList', { todos: [{ title: `Item ${n}`, status: 'in_progress' }] });

describe('requests whose prefix never changes (integration, through the mock)', () => {
  it('todo updates, goal steps and continuation turns, a mode switch, plan mode and a skill edit: every request starts with the one before it', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'yolo' });
    await put(join(h.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy', 'Tidies code.'));
    await h.core.handlers.listSkills({ rescan: true });
    const sessionId = h.session.id;

    h.server.enqueue(toolStep(todo(1)), toolStep(todo(2)), toolStep(callChunk('Read', { path: 'missing.txt' })), toolStep(todo(3)), textReply('Listed.'));
    await h.run('Start');

    await h.core.handlers.setPermissionMode({ sessionId, mode: 'accept-edits' });
    h.server.enqueue(toolStep(todo(4)), textReply('Mode noted.'));
    await h.run('After the mode switch');

    await put(join(h.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy', 'Tidies code, edited mid-session.'));
    await h.core.handlers.listSkills({ rescan: true });
    await h.core.handlers.setPlanMode({ sessionId, active: true });
    h.server.enqueue(textReply('Plan mode on.'));
    await h.run('After the skill edit');
    await h.core.handlers.setPlanMode({ sessionId, active: false });
    await h.core.handlers.setPermissionMode({ sessionId, mode: 'yolo' });

    // A goal: steps and continuation turns (its turns, tokens and time change all the while).
    h.server.enqueue(
      {
        chunks: [callChunk('CreateGoal', { objective: 'Tidy everything' }), { finish: 'tool_calls' }, { usage: { prompt_tokens: 900, completion_tokens: 40 } }],
      },
      { chunks: [todo(5), { finish: 'tool_calls' }, { usage: { prompt_tokens: 950, completion_tokens: 40 } }] },
      textReply('Goal turn one.', 1_000),
      toolStep(todo(6)),
      textReply('Goal turn two.', 1_100),
      toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'Tidy.' })),
    );
    await h.run('Work toward a goal');
    await waitFor(() => h!.sessionEvents('goal.updated').some((e) => 'goal' in e && e.goal?.status === 'complete'), 10_000);
    await h.core.turnDone(sessionId);

    const requests = h.server.requests;
    expect(requests).toHaveLength(14);
    expect(prefixBreaks(requests)).toEqual([]);
    expect(new Set(requests.map(systemOf)).size).toBe(1);

    // Each changing fact reached the model once per change, and never through the system prompt.
    const last = requests.at(-1)!;
    expect(saidOnce(requests, 'Permission mode: ask')).toBe(0);
    expect(saidOnce(requests, 'Permission mode: yolo')).toBe(2); // at the start, and when switched back
    expect(saidOnce(requests, 'Permission mode: accept-edits')).toBe(1);
    expect(saidOnce(requests, 'Tidies code, edited mid-session.')).toBe(1);
    expect(saidOnce(requests, '- tidy: Tidies code.')).toBe(1);
    expect(saidOnce(requests, 'The user wants a plan before any change.')).toBe(1);
    expect(saidOnce(requests, 'Plan mode is off.')).toBe(1);
    // TodoList and the goal tools said the todo list and the goal in their results: no reminder repeats them.
    expect(saidOnce(requests, 'My todo list')).toBe(0);
    expect(saidOnce(requests, 'Goal (')).toBe(0);
    expect(saidOnce(requests, "Today's date")).toBe(1);
    expect(String(last.body.messages[0]!.content)).not.toMatch(/My todo list|Permission mode: |Plan mode is on|# Skills|Goal \(/);
  });

  it('background task notifications join the end of the conversation; a restart resumes the same prefix', async () => {
    h = await createHarness({ tools: () => [waitTool] });
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: 'sleep 0.2; echo first', run_in_background: true, description: 'first job' })),
      toolStep(callChunk('Wait', { ms: 1_500 })),
      toolStep(callChunk('Bash', { command: 'sleep 0.2; echo second', run_in_background: true, description: 'second job' })),
      toolStep(callChunk('Wait', { ms: 1_500 })),
      textReply('Both done.'),
    );
    await h.run('Run two jobs');
    const notified = h.server.requests.filter((r) => String(r.body.messages.at(-1)!.content).startsWith('<notification'));
    expect(notified).toHaveLength(2);
    expect(prefixBreaks(h.server.requests)).toEqual([]);
    const texts = h.server.requests.at(-1)!.body.messages.map((m) => String(m.content));
    expect(texts.filter((t) => t.includes('source_kind="background_task"'))).toHaveLength(2);
    // Bash's result said each task runs; the running-tasks fact was never repeated in a reminder.
    expect(saidOnce(h.server.requests, 'Background tasks running now')).toBe(0);

    await h.core.close();
    const core = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: defaultCapabilities,
      tools: () => [waitTool],
    });
    try {
      await core.handlers.sendPrompt({ sessionId: h.session.id, text: 'After the restart' });
      await core.turnDone(h.session.id);
    } finally {
      await core.close();
    }
    expect(prefixBreaks(h.server.requests)).toEqual([]);
  });

  it('after a compaction every fact in force is said again, once; after an undo only what differs from what the model last heard', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(todo(1)), textReply('One.'));
    await h.run('one');
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: 'sleep 30', run_in_background: true, description: 'long job' })),
      toolStep(todo(2)),
      textReply('Two.'),
    );
    await h.run('two');

    await h.core.handlers.undoTurns({ sessionId: h.session.id, count: 1 });
    h.server.enqueue(textReply('Three.'));
    await h.run('three');
    // The undo took turn two's todo list back to turn one's, which its TodoList result had said: no reminder.
    // The job turn two started still runs, but what said so was undone: the fact is said again.
    const three = h.server.requests.at(-1)!;
    expect(prefixBreak(h.server.requests.at(-2)!, three)).toMatch(/history got shorter|message \d+ changed/);
    const afterUndo = reminders(three.body.messages.slice(h.server.requests[0]!.body.messages.length));
    expect(afterUndo).toEqual([expect.stringMatching(/^<system-reminder>\nBackground tasks running now; [\s\S]*long job/)]);

    h.server.enqueue(textReply('Note.'));
    await h.core.handlers.compactSession({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    h.server.enqueue(textReply('Four.'));
    await h.run('four');
    const four = h.server.requests.at(-1)!;
    const said = reminders(four.body.messages);
    expect(said).toHaveLength(1);
    for (const fact of ["Today's date", 'Permission mode: yolo', 'My todo list (TodoList updates it):\n[in_progress] Item 1', 'long job', '# Skills']) {
      expect(said[0]!.split(fact).length - 1).toBe(1);
    }
    expect(h.sessionEvents('compaction.ended').at(-1)).toMatchObject({
      reattached: expect.arrayContaining([
        { feature: 'todo', count: 1 },
        { feature: 'tasks', count: 1 },
      ]),
    });
  });

  it('the system prompt changes only with the tool set', async () => {
    let tools: Tool[] = [echoTool];
    h = await createHarness({ tools: () => tools });
    await h.run('one');
    await h.run('two');
    tools = [echoTool, waitTool];
    await h.run('three');
    await h.run('four');
    const breaks = prefixBreaks(h.server.requests);
    expect(breaks).toEqual([{ index: 2, why: expect.stringMatching(/^tools changed/) }]);
    const systems = h.server.requests.map(systemOf);
    expect(systems[1]).toBe(systems[0]);
    expect(systems[2]).not.toBe(systems[1]);
    expect(systems[2]).toContain('- Wait: Wait for a while.');
    expect(systems[3]).toBe(systems[2]);
    // The workspace's git status and AGENTS.md are read when the prompt is written, not at every step.
    await writeFile(join(h.workspace, 'AGENTS.md'), 'Use tabs.\n');
    await h.run('five');
    expect(systemOf(h.server.requests.at(-1)!)).toBe(systems[3]);
  });

  it('Anthropic: breakpoints on the system prompt, the tools and the last two user messages; the bytes repeat otherwise', async () => {
    h = await createHarness({ tools: () => [echoTool] });
    await h.core.handlers.setSettings({ provider: { kind: 'anthropic', baseUrl: h.baseUrl, model: 'claude-test', apiKey: 'k' } });
    h.server.enqueue(toolStep(callChunk('Echo', { text: 'a' }, 'toolu_1')), toolStep(callChunk('Echo', { text: 'b' }, 'toolu_2')), textReply('Done.'));
    await h.run('go');
    await h.run('again');
    expect(prefixBreaks(h.server.requests)).toEqual([]);
    for (const request of h.server.requests) {
      expect(request.raw.split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
      const body = request.body as unknown as {
        system: Array<{ cache_control?: unknown }>;
        tools: Array<{ cache_control?: unknown }>;
        messages: Array<{ role: string; content: Array<{ cache_control?: unknown }> }>;
      };
      expect(body.system.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.messages.at(-1)!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    }
    // The third request reads what the second wrote: its breakpoint sits where the second request ended.
    const [, second, third] = h.server.requests as [RecordedRequest, RecordedRequest, RecordedRequest];
    const thirdBody = third.body as unknown as { messages: Array<{ content: Array<{ cache_control?: unknown }> }> };
    const secondLength = (second.body as unknown as { messages: unknown[] }).messages.length;
    expect(thirdBody.messages[secondLength - 1]!.content.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
  });
});
