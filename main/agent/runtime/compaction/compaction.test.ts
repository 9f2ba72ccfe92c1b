import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent, SessionEventOf } from '#protocol';
import type { RecordedRequest } from '#test-support/mock-model-server';
import { DeftCore } from '../core';
import type { CapabilityFactory } from '#contract/capability';
import { LOG_FILE } from '#infra/sessions/session';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { createSkillsCapability } from '../../capabilities/skills/capability';
import { put, skillMd } from '#test-support/skills';
import { createHarness, fastRetry } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep, withoutReminders } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
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
  createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' }),
];
const todos = [
  { title: 'Rename the parser', status: 'in_progress' },
  { title: 'Update the callers', status: 'pending' },
];
const withUsage = (reply: ReturnType<typeof toolStep>, prompt: number, completion = 0) => ({
  chunks: [...reply.chunks!, { usage: { prompt_tokens: prompt, completion_tokens: completion } }],
});
/** What the model read, system prompt and fact reminders left out, as role + text. */
const history = (request: RecordedRequest) =>
  withoutReminders(request.body.messages.slice(1)).map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
const last = <T extends SessionEvent['type']>(hh: Harness, type: T) => hh.sessionEvents(type).at(-1) as SessionEventOf<T> | undefined;

async function setup(contextWindow?: number): Promise<Harness> {
  const harness = await createHarness({ capabilities: capabilities() });
  await harness.core.handlers.setSettings({
    provider: { kind: 'openai', baseUrl: harness.baseUrl, model: 'mock-model', apiKey: 'k', ...(contextWindow ? { contextWindow } : {}) },
  });
  await put(join(harness.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy', 'Tidies code.', '', 'Keep functions short.'));
  await harness.core.handlers.listSkills({ rescan: true });
  return harness;
}

async function compact(hh: Harness, instructions?: string) {
  await hh.core.handlers.compactSession({ sessionId: hh.session.id, ...(instructions ? { instructions } : {}) });
  return hh.core.turnDone(hh.session.id);
}

describe('context compaction (integration)', () => {
  it('compacts automatically before a step once the context reaches 85% of the window; the turn carries on from the note', async () => {
    h = await setup(10_000);
    h.server.enqueue(withUsage(toolStep(callChunk('TodoList', { todos })), 3_000, 100), textReply('Planned.', 3_200));
    await h.run('Plan the rename');
    expect(h.sessionEvents('compaction.started')).toHaveLength(0);

    h.server.enqueue(
      // 8,400 + 200 tokens: 86% of the window once the step ends.
      withUsage(toolStep(callChunk('Skill', { skill: 'tidy' })), 8_400, 200),
      textReply('I was renaming the parser; the todo list says what is left.'),
      textReply('Continuing with the callers.'),
    );
    const turnId = await h.run('Rename it now');
    const [step1, compaction, step2] = h.server.requests.slice(-3) as [RecordedRequest, RecordedRequest, RecordedRequest];

    // The compaction call: the whole history, then the instruction, with the same system prompt and tools.
    expect(history(compaction).slice(0, history(step1).length)).toEqual(history(step1));
    expect(history(compaction)).toHaveLength(history(step1).length + 3); // + the Skill call, its result, the instruction
    expect(history(compaction)[0]).toBe('user: Plan the rename');
    expect(history(compaction).at(-1)).toContain('Write the handoff note to yourself, in the first person');
    expect(compaction.body.messages[0]).toEqual(step1.body.messages[0]);
    expect(compaction.body.tools).toEqual(step1.body.tools);

    // The next step reads: the user's prompts, the note, the re-attached skill block, and one reminder of every
    // fact in force (the date, the todo list, the skill listing) — nothing else.
    const after = history(step2);
    expect(after).toHaveLength(4);
    expect(after[0]).toBe('user: Plan the rename');
    expect(after[1]).toBe('user: Rename it now');
    expect(after[2]).toMatch(
      /^user: <system-reminder>\nThis conversation was compacted[\s\S]*<handoff-note>\nI was renaming the parser; the todo list says what is left.\n<\/handoff-note>$/,
    );
    expect(after[3]).toMatch(/^user: The Skill tool loaded the skill "tidy"[\s\S]*<skill-loaded name="tidy" trigger="model"[\s\S]*Keep functions short\./);
    expect(after.filter((m) => m.includes('<skill-loaded'))).toHaveLength(1);
    expect(step2.body.messages.at(-1)).toEqual({ role: 'user', content: reminders(step2.body.messages)[0] });
    const [said] = reminders(step2.body.messages) as [string];
    expect(reminders(step2.body.messages)).toHaveLength(1);
    expect(said).toMatch(/^<system-reminder>\nToday's date: \d{4}-\d{2}-\d{2}\.\n<\/system-reminder>\n/);
    expect(said).toContain(
      '<system-reminder>\nMy todo list (TodoList updates it):\n[in_progress] Rename the parser\n[pending] Update the callers\n</system-reminder>',
    );
    expect(said).toContain('- tidy: Tidies code.');
    // A compaction starts the cached prefix afresh: the system prompt is written again (here it reads the same).
    expect(step2.body.messages[0]).toEqual(step1.body.messages[0]);

    expect(last(h, 'compaction.started')).toMatchObject({ trigger: 'auto', turnId, contextWindow: 10_000 });
    expect(last(h, 'compaction.started')!.tokensBefore).toBeGreaterThanOrEqual(8_600);
    expect(last(h, 'compaction.ended')).toMatchObject({
      trigger: 'auto',
      turnId,
      outcome: 'compacted',
      note: 'I was renaming the parser; the todo list says what is left.',
      keptMessages: 2,
      reattached: [
        { feature: 'skills', count: 1 },
        { feature: 'todo', count: 1 },
        { feature: 'skills.listing', count: 1 },
      ],
    });
    expect(last(h, 'compaction.ended')!.tokensAfter).toBeLessThan(2_000);
    expect(last(h, 'turn.ended')).toMatchObject({ turnId, stopReason: 'end_turn' });
  });

  it('manual /compact: the next request carries the note, the recent prompts, the skill and the todo list; a restart replays the same history', async () => {
    h = await setup();
    await h.core.handlers.runSkill({ sessionId: h.session.id, name: 'tidy', args: 'src/' });
    await h.core.turnDone(h.session.id);
    h.server.enqueue(toolStep(callChunk('TodoList', { todos })), textReply('Listed.'));
    await h.run('Make a todo list');
    await h.run('Third question');
    const toolCallsBefore = h.sessionEvents('tool.call.started').length;

    h.server.enqueue(textReply('I tidied src/ and listed the rename work.'));
    expect(await compact(h, 'Keep the file names')).toEqual({ stopReason: 'end_turn' });
    const request = h.server.requests.at(-1)!;
    expect(history(request).at(-1)).toMatch(/first person[\s\S]*The user asked this note to take particular care of:\nKeep the file names$/);
    expect(last(h, 'compaction.ended')).toMatchObject({
      trigger: 'manual',
      outcome: 'compacted',
      keptMessages: 2,
      note: 'I tidied src/ and listed the rename work.',
    });
    expect(last(h, 'compaction.started')).toMatchObject({ trigger: 'manual', instructions: 'Keep the file names' });

    h.server.enqueue(toolStep(callChunk('TodoList', {})));
    await h.run('After the compaction');
    const next = history(h.server.requests.at(-2)!);
    expect(next[0]).toBe('user: Make a todo list');
    expect(next[1]).toBe('user: Third question');
    expect(next[2]).toContain('<handoff-note>\nI tidied src/ and listed the rename work.\n</handoff-note>');
    // The skill the user ran is re-attached once (not also kept as a prompt); the todo list is said again as a fact.
    expect(next[3]).toMatch(/^user: The user activated the skill "tidy"[\s\S]*Keep functions short\.\n\nARGUMENTS: src\/\n<\/skill-loaded>$/);
    expect(next[4]).toBe('user: After the compaction');
    expect(next).toHaveLength(5);
    expect(reminders(h.server.requests.at(-2)!.body.messages).join('\n')).toContain('[in_progress] Rename the parser');
    // Tool-call ids stay unique in the transcript although the server numbers calls from call_0 again.
    const ids = h.sessionEvents('tool.call.started').map((e) => (e as SessionEventOf<'tool.call.started'>).callId);
    expect(ids.length).toBe(toolCallsBefore + 1);
    expect(new Set(ids).size).toBe(ids.length);

    // The transcript keeps everything.
    const sessionId = h.session.id;
    const expected = history(h.server.requests.at(-1)!);
    await h.core.close();
    const core = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, retry: fastRetry, capabilities: capabilities() });
    try {
      const opened = await core.handlers.openSession({ sessionId });
      expect(opened.problems).toEqual([]);
      expect(opened.events.filter((e) => e.type === 'turn.started')).toHaveLength(4);
      expect(opened.events.filter((e) => e.type === 'compaction.ended')).toHaveLength(1);
      await core.handlers.sendPrompt({ sessionId, text: 'After the restart' });
      await core.turnDone(sessionId);
      const replayed = history(h.server.requests.at(-1)!);
      expect(replayed).toEqual([...expected, 'assistant: Echo: After the compaction', 'user: After the restart']);
    } finally {
      await core.close();
    }
  });

  it('a compaction that fails (after retries) or is stopped leaves the history untouched', async () => {
    h = await setup();
    await h.run('hello');
    const before = history(h.server.requests.at(-1)!);

    h.server.fallback = () => ({ status: 500, body: '{"error":{"message":"boom"}}' });
    const requests = h.server.requests.length;
    expect(await compact(h)).toMatchObject({ stopReason: 'error', error: { code: 'provider_server' } });
    expect(h.server.requests.length - requests).toBe(fastRetry.maxAttempts);
    expect(last(h, 'compaction.ended')).toMatchObject({
      outcome: 'failed',
      error: { code: 'provider_server', message: expect.stringContaining('Gave up after 3 attempts') },
    });

    h.server.fallback = () => ({ chunks: [{ text: 'a slow note' }, { text: ' that never ends' }, { finish: 'stop' }], delayMs: 5_000 });
    await h.core.handlers.compactSession({ sessionId: h.session.id });
    await waitFor(() => h!.sessionEvents('compaction.started').length === 2);
    expect(await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'too soon' }).catch((e: { code: string }) => e.code)).toBe('busy');
    expect(await h.core.handlers.cancelTurn({ sessionId: h.session.id })).toEqual({ cancelled: true });
    expect(await h.core.turnDone(h.session.id)).toEqual({ stopReason: 'cancelled' });
    expect(last(h, 'compaction.ended')).toMatchObject({ outcome: 'cancelled' });

    h.server.fallback = (r) => textReply(`Echo: ${String(r.body.messages.at(-1)!.content)}`);
    await h.run('still there?');
    expect(history(h.server.requests.at(-1)!)).toEqual([...before, 'assistant: Echo: hello', 'user: still there?']);
  });

  it('an automatic compaction that fails does not stop the turn; the step runs on the full history', async () => {
    h = await setup(10_000);
    h.server.enqueue(textReply('First answer.', 9_000));
    await h.run('first');
    h.server.enqueue({ status: 400, body: '{"error":{"message":"context too long"}}' }, textReply('Second answer.'));
    await h.run('second');
    expect(last(h, 'compaction.ended')).toMatchObject({ trigger: 'auto', outcome: 'failed', error: { code: 'provider_bad_request' } });
    expect(history(h.server.requests.at(-1)!)).toEqual(['user: first', 'assistant: First answer.', 'user: second']);
    expect(last(h, 'turn.ended')).toMatchObject({ stopReason: 'end_turn' });
    // Once per turn: the failure is not retried at every step.
    expect(h.sessionEvents('compaction.started')).toHaveLength(1);
  });

  it('stopping the turn during an automatic compaction stops both and leaves the history untouched', async () => {
    h = await setup(10_000);
    h.server.enqueue(textReply('First answer.', 9_000));
    await h.run('first');
    h.server.enqueue({ chunks: [{ text: 'a note' }, { text: ' that takes its time' }, { finish: 'stop' }], delayMs: 5_000 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'second' });
    await waitFor(() => h!.sessionEvents('compaction.started').length === 1);
    // Stopped once the compaction's request is at the server (stopped before it, the request is never sent, and the
    // slow reply queued for it would answer the next compaction instead: seen under load).
    await waitFor(() => h!.server.requests.length === 2);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    expect(await h.core.turnDone(h.session.id)).toEqual({ stopReason: 'cancelled' });
    expect(last(h, 'compaction.ended')).toMatchObject({ trigger: 'auto', outcome: 'cancelled' });
    // The context is still full, so the next turn compacts again — from the untouched history.
    h.server.enqueue(textReply('Note after all.'), textReply('Third answer.'));
    await h.run('third');
    expect(history(h.server.requests.at(-2)!).slice(0, -1)).toEqual(['user: first', 'assistant: First answer.', 'user: second', 'user: third']);
    expect(last(h, 'compaction.ended')).toMatchObject({ outcome: 'compacted', note: 'Note after all.' });
  });

  it('a compaction cut short by a crash is closed as failed when the session is opened again', async () => {
    h = await setup();
    await h.run('hello');
    const sessionId = h.session.id;
    await h.core.close();
    await appendFile(
      join(workspaceSessionsDir(h.home, h.workspace), sessionId, LOG_FILE),
      JSON.stringify({
        r: 'event',
        e: {
          type: 'compaction.started',
          sessionId,
          seq: 999,
          at: 0,
          compactionId: 'compact-dead',
          trigger: 'manual',
          tokensBefore: 10,
          contextWindow: 128_000,
        },
      }) + '\n',
    );
    const core = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, retry: fastRetry, capabilities: capabilities() });
    try {
      const opened = await core.handlers.openSession({ sessionId });
      expect(opened.events.at(-1)).toMatchObject({
        type: 'compaction.ended',
        compactionId: 'compact-dead',
        outcome: 'failed',
        error: { message: expect.stringContaining('Deft stopped while compacting') },
      });
      await core.handlers.sendPrompt({ sessionId, text: 'again' });
      await core.turnDone(sessionId);
      expect(history(h.server.requests.at(-1)!)).toEqual(['user: hello', 'assistant: Echo: hello', 'user: again']);
    } finally {
      await core.close();
    }
  });

  it('refuses to compact an empty conversation or while a turn runs', async () => {
    h = await setup();
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: { code: string; message: string }) => e,
      );
    expect(await fail(h.core.handlers.compactSession({ sessionId: h.session.id }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('nothing to compact'),
    });
    h.server.enqueue({ chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 150 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'busy' });
    expect(await fail(h.core.handlers.compactSession({ sessionId: h.session.id }))).toMatchObject({ code: 'busy' });
    await h.core.turnDone(h.session.id);
  });
});
