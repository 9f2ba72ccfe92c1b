import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEventOf, TodoItem } from '#protocol';
import type { RecordedRequest } from '#test-support/mock-model-server';
import { dispatchCommand } from '../../../host/dispatch';
import { DeftCore } from '../core';
import type { CapabilityFactory } from '#contract/capability';
import { approvalsCapability } from '../../capabilities/approvals/capability';
import { createSkillsCapability } from '../../capabilities/skills/capability';
import { put, skillMd } from '#test-support/skills';
import { createHarness, fastRetry } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep, withoutReminders } from '#test-support/mock-steps';
import { todoCapability } from '../../capabilities/todo/capability';
import { cliHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const capabilities = (): CapabilityFactory[] => [
  todoCapability,
  approvalsCapability,
  createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' }),
];
const listA: TodoItem[] = [
  { title: 'Read the code', status: 'in_progress' },
  { title: 'Fix the bug', status: 'pending' },
];
const listB: TodoItem[] = [
  { title: 'Read the code', status: 'done' },
  { title: 'Fix the bug', status: 'in_progress' },
];
/** The user messages of a request, fact reminders left out. */
const prompts = (request: RecordedRequest) => withoutReminders(request.body.messages.filter((m) => m.role === 'user')).map((m) => String(m.content));
const todoUpdates = (hh: Harness) => hh.sessionEvents('todo.updated').map((e) => (e as SessionEventOf<'todo.updated'>).items);
const fail = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code: string; message: string }) => e,
  );

async function threeTurns(hh: Harness): Promise<string[]> {
  hh.server.enqueue(toolStep(callChunk('TodoList', { todos: listA })), textReply('Started.'));
  const one = await hh.run('one');
  hh.server.enqueue(toolStep(callChunk('TodoList', { todos: listB })), toolStep(callChunk('Skill', { skill: 'tidy' })), textReply('Progress.'));
  const two = await hh.run('two');
  hh.server.enqueue(toolStep(callChunk('EnterPlanMode', {})), textReply('Planning.'));
  const three = await hh.run('three');
  return [one, two, three];
}

describe('undo (integration)', () => {
  it('undo of 1 then 2 turns changes what the next request carries and rolls back the todo list, plan mode and loaded skills', async () => {
    h = await createHarness({ capabilities: capabilities() });
    await put(join(h.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy'));
    await h.core.handlers.listSkills({ rescan: true });
    const [, two, three] = await threeTurns(h);
    expect(h.sessionEvents('plan.mode.changed').at(-1)).toMatchObject({ plan: { active: true } });

    expect(await h.core.handlers.undoTurns({ sessionId: h.session.id, count: 1 })).toEqual({ turnIds: [three] });
    expect(h.sessionEvents('turns.undone').at(-1)).toMatchObject({ turnIds: [three] });
    expect(h.sessionEvents('plan.mode.changed').at(-1)).toMatchObject({ plan: { active: false } });
    expect(todoUpdates(h).at(-1)).toEqual(listB); // set in turn two: unchanged, and no needless update
    expect(todoUpdates(h)).toHaveLength(2);
    await h.run('four');
    const afterOne = h.server.requests.at(-1)!;
    expect(prompts(afterOne)).toEqual(['one', 'two', expect.stringContaining('<skill-loaded name="tidy"'), 'four']);
    // Plan mode was announced by EnterPlanMode's result in the undone turn: after the undo it is off, as the model last heard.
    expect(reminders(afterOne.body.messages).join('\n')).not.toContain('Plan mode');
    expect(afterOne.body.messages[0]).toEqual(h.server.requests[0]!.body.messages[0]);

    // Turns four and two: the todo list goes back to what turn one wrote, the skill loaded in two is forgotten.
    const undone = await h.core.handlers.undoTurns({ sessionId: h.session.id, count: 2 });
    expect(undone.turnIds).toEqual([two, expect.any(String)]);
    expect(todoUpdates(h).at(-1)).toEqual(listA);
    const session = await h.core.handlers.openSession({ sessionId: h.session.id });
    expect(session.events.at(-1)).toMatchObject({ type: 'turns.undone', turnIds: undone.turnIds });
    h.server.enqueue(toolStep(callChunk('TodoList', {})));
    await h.run('five');
    // The todo list is back to what turn one's TodoList result said: nothing to remind the model of.
    const afterTwo = h.server.requests.at(-2)!;
    expect(reminders(afterTwo.body.messages.slice(h.server.requests[0]!.body.messages.length))).toEqual([]);
    expect(prompts(afterTwo)).toEqual(['one', 'five']);
    expect(afterTwo.body.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toEqual([null, 'Started.']);
    expect(String(h.server.requests.at(-1)!.body.messages.at(-1)!.content)).toBe('[in_progress] Read the code\n[pending] Fix the bug');

    // The skill loaded in the undone turn is no longer re-attached by a compaction; the facts in force are said again.
    h.server.enqueue(textReply('Note.'));
    await h.core.handlers.compactSession({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    expect(h.sessionEvents('compaction.ended').at(-1)).toMatchObject({
      outcome: 'compacted',
      reattached: [
        { feature: 'todo', count: 1 },
        { feature: 'permissions.mode', count: 1 },
        { feature: 'skills.listing', count: 1 },
      ],
    });
  });

  it('refuses to undo across a compaction, while a turn runs, beyond the turns there are, or with nothing to undo', async () => {
    h = await createHarness({ capabilities: capabilities() });
    const sessionId = h.session.id;
    expect(await fail(h.core.handlers.undoTurns({ sessionId, count: 1 }))).toMatchObject({
      code: 'invalid_request',
      message: 'There is nothing to undo: no turn has run in this session yet.',
    });
    await h.run('one');
    await h.run('two');
    expect(await fail(h.core.handlers.undoTurns({ sessionId, count: 3 }))).toMatchObject({ message: 'Only 2 turns can be undone. Use /undo 2.' });

    h.server.enqueue(textReply('My note.'));
    await h.core.handlers.compactSession({ sessionId });
    await h.core.turnDone(sessionId);
    expect(await fail(h.core.handlers.undoTurns({ sessionId, count: 1 }))).toMatchObject({
      message: expect.stringContaining('undo cannot go back past a compaction'),
    });
    await h.run('three');
    expect(await fail(h.core.handlers.undoTurns({ sessionId, count: 2 }))).toMatchObject({
      code: 'invalid_request',
      message: 'Only the last 1 turn can be undone: undo cannot go back past the compaction before them. Use /undo 1.',
    });

    h.server.enqueue({ chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 150 });
    await h.core.handlers.sendPrompt({ sessionId, text: 'busy' });
    expect(await fail(h.core.handlers.undoTurns({ sessionId, count: 1 }))).toMatchObject({ code: 'busy', message: expect.stringContaining('Stop it first') });
    await h.core.turnDone(sessionId);
    // Nothing was changed by the refusals: the history still ends with the note, three and busy.
    await h.run('check');
    expect(prompts(h.server.requests.at(-1)!).slice(-3)).toEqual(['three', 'busy', 'check']);
    // Through the protocol, the count is validated before the core sees it.
    expect(await dispatchCommand(h.core.handlers, 'undoTurns', { sessionId, count: 0 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('count') },
    });
    expect(await dispatchCommand(h.core.handlers, 'undoTurns', { sessionId, count: 'two' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('is persisted: after a restart the model reads the same history and the todo list is the restored one', async () => {
    h = await createHarness({ capabilities: capabilities() });
    const sessionId = h.session.id;
    h.server.enqueue(toolStep(callChunk('TodoList', { todos: listA })), textReply('Started.'));
    await h.run('one');
    h.server.enqueue(toolStep(callChunk('TodoList', { todos: listB })), textReply('Progress.'));
    const two = await h.run('two');
    await h.core.handlers.undoTurns({ sessionId, count: 1 });
    await h.core.close();

    const core = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, retry: fastRetry, capabilities: capabilities() });
    try {
      const opened = await core.handlers.openSession({ sessionId });
      expect(opened.problems).toEqual([]);
      expect(opened.events.filter((e) => e.type === 'turns.undone')).toMatchObject([{ turnIds: [two] }]);
      expect((opened.events.filter((e) => e.type === 'todo.updated').at(-1) as SessionEventOf<'todo.updated'>).items).toEqual(listA);
      // The undone turn's events stay for the transcript.
      expect(opened.events.filter((e) => e.type === 'turn.started').map((e) => e.text)).toEqual(['one', 'two']);

      h.server.enqueue(toolStep(callChunk('TodoList', {})));
      await core.handlers.sendPrompt({ sessionId, text: 'where was I?' });
      await core.turnDone(sessionId);
      expect(prompts(h.server.requests.at(-1)!)).toEqual(['one', 'where was I?']);
      expect(String(h.server.requests.at(-1)!.body.messages.at(-1)!.content)).toBe('[in_progress] Read the code\n[pending] Fix the bug');
      // Undo after the restart continues from the replayed turns.
      expect(await core.handlers.undoTurns({ sessionId, count: 2 })).toMatchObject({ turnIds: [expect.any(String), expect.any(String)] });
      expect(await fail(core.handlers.undoTurns({ sessionId, count: 1 }))).toMatchObject({ message: expect.stringContaining('nothing to undo') });
    } finally {
      await core.close();
    }
  });
});
