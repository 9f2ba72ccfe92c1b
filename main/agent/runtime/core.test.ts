import { appendFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type SessionEvent, commandSchemas } from '#protocol';
import { defaultCapabilities } from '../capabilities';
import { textChunks } from '#test-support/mock-model-server';
import { DeftCore } from './core';
import { LOG_FILE } from '../infra/sessions/session';
import { workspaceSessionsDir } from '../infra/sessions/store';
import { createHarness, fastRetry, testCapabilities } from '#test-support/harness';
import { testTools } from '#test-support/tools';
import { withoutReminders } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { cliHost } from '../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const ended = (hh: Harness) => hh.sessionEvents('turn.ended').at(-1) as Extract<SessionEvent, { type: 'turn.ended' }>;

describe('a turn against an OpenAI-compatible server', () => {
  it('streams text deltas to the UI and ends normally', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('The answer is 42.', 3), { finish: 'stop' }, { usage: { prompt_tokens: 10, completion_tokens: 6 } }] });
    await h.run('What is the answer?');
    const deltas = h.sessionEvents('assistant.delta') as Array<Extract<SessionEvent, { type: 'assistant.delta' }>>;
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((d) => d.text).join('')).toBe('The answer is 42.');
    expect(ended(h).stopReason).toBe('end_turn');
    expect(h.sessionEvents('usage').at(-1)).toMatchObject({ total: { inputTokens: 10, outputTokens: 6 } });
    const seqs = h.sessionEvents().map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
  });

  it('runs tool calls whose arguments arrive split across chunks, and sends results back as tool messages', async () => {
    h = await createHarness({ tools: () => testTools, capabilities: [] });
    h.server.enqueue(
      {
        chunks: [
          { text: 'Let me echo.' },
          { toolCall: { id: 'call_1', name: 'Echo', args: '{"text":"split across chunks","times":2}', pieces: 9 } },
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ text: 'Done.' }, { finish: 'stop' }] },
    );
    await h.run('echo something');
    const second = h.server.requests[1]!.body;
    expect(second.messages.at(-2)).toMatchObject({
      role: 'assistant',
      content: 'Let me echo.',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Echo' } }],
    });
    expect(second.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'split across chunks\nsplit across chunks\n<system>echo note</system>',
    });
    // The core's own tools come first; capabilities add theirs after.
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name).slice(0, 5)).toEqual(['Echo', 'Wait', 'Stubborn', 'Refuse', 'Big']);
    expect(ended(h).stopReason).toBe('end_turn');
  });

  it('turns malformed tool-call JSON into an error the model reads, and carries on', async () => {
    h = await createHarness({ tools: () => testTools });
    h.server.enqueue(
      { chunks: [{ toolCall: { name: 'Echo', args: '{"text": "oops"' } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Fixed.' }, { finish: 'stop' }] },
    );
    await h.run('go');
    const toolMessage = h.server.requests[1]!.body.messages.at(-1)!;
    expect(toolMessage.content).toMatch(/^ERROR: The arguments for Echo are not valid JSON/);
    expect(ended(h).stopReason).toBe('end_turn');
  });

  it('retries a 429 (honouring Retry-After) and then succeeds', async () => {
    h = await createHarness();
    h.server.enqueue(
      { status: 429, headers: { 'retry-after': '0' }, body: '{"error":{"message":"rate limited"}}' },
      { chunks: [{ text: 'after retry' }, { finish: 'stop' }] },
    );
    await h.run('hi');
    expect(h.sessionEvents('step.retrying')).toHaveLength(1);
    expect(h.sessionEvents('step.retrying')[0]).toMatchObject({ attempt: 1, delayMs: 0, error: { code: 'provider_rate_limit' } });
    expect(ended(h).stopReason).toBe('end_turn');
    expect(h.server.requests).toHaveLength(2);
  });

  it('Retry now ends the wait before a retry at once', async () => {
    h = await createHarness();
    h.server.enqueue(
      { status: 429, headers: { 'retry-after': '2' }, body: '{"error":{"message":"rate limited"}}' },
      { chunks: [{ text: 'after retry' }, { finish: 'stop' }] },
    );
    expect(await h.core.handlers.retryNow({ sessionId: h.session.id })).toEqual({ retried: false });
    const started = Date.now();
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'hi' });
    await waitFor(() => h.sessionEvents('step.retrying').length === 1);
    expect(h.sessionEvents('step.retrying')[0]).toMatchObject({ delayMs: 2_000 });
    expect(await h.core.handlers.retryNow({ sessionId: h.session.id })).toEqual({ retried: true });
    await h.core.turnDone(h.session.id);
    expect(Date.now() - started).toBeLessThan(1_900);
    expect(ended(h).stopReason).toBe('end_turn');
    expect(h.server.requests).toHaveLength(2);
  });

  it('gives up after the bounded number of attempts on repeated 500s, with a clear error', async () => {
    h = await createHarness();
    h.server.fallback = () => ({ status: 500, body: '{"error":{"message":"boom"}}' });
    await h.run('hi');
    expect(h.server.requests).toHaveLength(fastRetry.maxAttempts);
    expect(ended(h)).toMatchObject({ stopReason: 'error', error: { code: 'provider_server' } });
    expect(ended(h).error!.message).toMatch(/server error \(HTTP 500\).*boom.*Gave up after 3 attempts/);
  });

  it('retries a stream cut mid-way, and the UI is told to drop the partial text', async () => {
    h = await createHarness();
    h.server.enqueue(
      { chunks: [...textChunks('partial partial'), { finish: 'stop' }], cutAfter: 2 },
      { chunks: [{ text: 'whole answer' }, { finish: 'stop' }] },
    );
    await h.run('hi');
    const retrying = h.sessionEvents('step.retrying');
    expect(retrying[0]).toMatchObject({ error: { code: 'provider_stream_broken' } });
    const context = JSON.stringify(h.server.requests.at(-1)!.body.messages);
    expect(context).not.toContain('partial');
    expect(ended(h).stopReason).toBe('end_turn');
  });

  it('does not retry a 401 and says to check the key', async () => {
    h = await createHarness();
    h.server.enqueue({ status: 401, body: '{"error":{"message":"bad key"}}' });
    await h.run('hi');
    expect(h.server.requests).toHaveLength(1);
    expect(ended(h)).toMatchObject({ stopReason: 'error', error: { code: 'provider_auth' } });
  });

  it('stops after max steps', async () => {
    h = await createHarness({ tools: () => testTools, maxSteps: 2 });
    h.server.fallback = () => ({ chunks: [{ toolCall: { name: 'Echo', args: '{"text":"again"}' } }, { finish: 'tool_calls' }] });
    await h.run('loop');
    expect(h.server.requests).toHaveLength(2);
    expect(ended(h).stopReason).toBe('max_steps');
  });

  it('refuses a second prompt while a turn runs, and an empty prompt', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('slow '.repeat(20)), { finish: 'stop' }], delayMs: 10 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'one' });
    await expect(h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'two' })).rejects.toMatchObject({ code: 'busy' });
    await h.core.turnDone(h.session.id);
    await expect(h.core.handlers.sendPrompt({ sessionId: h.session.id, text: '   ' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});

describe('a turn against Anthropic Messages', () => {
  it('runs the same tool loop over the Messages protocol', async () => {
    h = await createHarness({ tools: () => testTools });
    await h.core.handlers.setSettings({ provider: { kind: 'anthropic', baseUrl: h.baseUrl, model: 'claude-test', apiKey: 'sk-ant' } });
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'toolu_1', name: 'Echo', args: '{"text":"hi"}', pieces: 3 } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'All done.' }, { finish: 'stop' }] },
    );
    await h.run('echo hi');
    expect(h.server.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    // The newest message carries a cache breakpoint (see anthropic.test.ts).
    expect(h.server.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'hi\n<system>echo note</system>' }],
          cache_control: { type: 'ephemeral' },
        },
      ],
    });
    expect(ended(h).stopReason).toBe('end_turn');
  });
});

describe('cancel', () => {
  it('aborts a long stream within 2 s and keeps the session usable', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('word '.repeat(500), 5), { finish: 'stop' }], delayMs: 20 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'long' });
    // Cancel once the stream is flowing (a fixed sleep raced the turn's start on a loaded machine).
    const streamed = () =>
      h
        .sessionEvents('assistant.delta')
        .map((e) => (e.type === 'assistant.delta' ? e.text : ''))
        .join('');
    await waitFor(() => streamed().startsWith('word word'));
    const started = Date.now();
    expect(await h.core.handlers.cancelTurn({ sessionId: h.session.id })).toEqual({ cancelled: true });
    await h.core.turnDone(h.session.id);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(ended(h).stopReason).toBe('cancelled');
    h.server.enqueue({ chunks: [{ text: 'next' }, { finish: 'stop' }] });
    await h.run('again');
    const messages = withoutReminders(h.server.requests.at(-1)!.body.messages);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(String(messages[2]!.content)).toMatch(/^word word/);
  });

  it('aborts a running tool, answers every issued call, and the next request is valid', async () => {
    h = await createHarness({ tools: () => testTools, abortGraceMs: 300 });
    h.server.enqueue({
      chunks: [
        { toolCall: { id: 'w', name: 'Wait', args: '{"ms":30000}' } },
        { toolCall: { id: 's', name: 'Stubborn', args: '{"ms":30000}' } },
        { finish: 'tool_calls' },
      ],
    });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'wait' });
    await waitFor(() => h.sessionEvents('tool.call.started').length === 2);
    const started = Date.now();
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(h.sessionEvents('tool.call.result')).toHaveLength(2);
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('next');
    const roles = withoutReminders(h.server.requests.at(-1)!.body.messages).map((m) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
  });
});

describe('sessions persist', () => {
  it('replays a conversation in a new core (restart) and continues it with the same history', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('first answer', 2), { finish: 'stop' }] });
    await h.run('first question');
    const before = (await h.core.handlers.openSession({ sessionId: h.session.id })).events;
    await h.core.close();

    const restarted = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: testCapabilities,
    });
    const { sessions } = await restarted.handlers.listSessions({});
    expect(sessions).toEqual([expect.objectContaining({ id: h.session.id, title: 'first question', turns: 1, running: false })]);
    const opened = await restarted.handlers.openSession({ sessionId: h.session.id });
    expect(opened.problems).toEqual([]);
    expect(opened.events.map((e) => e.type)).toEqual(before.map((e) => e.type));
    // Deltas are merged on disk.
    const deltas = opened.events.filter((e) => e.type === 'assistant.delta');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]).toMatchObject({ text: 'first answer' });

    h.server.enqueue({ chunks: [{ text: 'second answer' }, { finish: 'stop' }] });
    await restarted.handlers.sendPrompt({ sessionId: h.session.id, text: 'second question' });
    await restarted.turnDone(h.session.id);
    const messages = withoutReminders(h.server.requests.at(-1)!.body.messages);
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
    ]);
    await restarted.close();
  });

  it('ignores a torn last line, reports a corrupt middle line, and closes a turn cut off by a crash', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('q');
    await h.core.close();
    const log = join(workspaceSessionsDir(h.home, h.workspace), h.session.id, LOG_FILE);
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines.splice(3, 0, '{this is not json');
    const lastSeq = 100;
    const crashed = JSON.stringify({
      r: 'event',
      e: { type: 'turn.started', sessionId: h.session.id, seq: lastSeq, at: 1, turnId: 'turn-crash', text: 'crash', attachments: [], origin: 'user' },
    });
    const assistant = JSON.stringify({ r: 'context', m: { role: 'assistant', content: '', toolCalls: [{ id: 'lost', name: 'Echo', arguments: '{}' }] } });
    await writeFile(log, lines.join('\n'));
    await appendFile(log, `${crashed}\n${assistant}\n{"r":"event","e":{"type":"assi`);

    const restarted = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: testCapabilities,
    });
    const opened = await restarted.handlers.openSession({ sessionId: h.session.id });
    expect(opened.problems).toEqual(['Line 4 of the session log is not valid JSON and was skipped.']);
    expect(opened.events.at(-1)).toMatchObject({ type: 'turn.ended', turnId: 'turn-crash', stopReason: 'error', seq: lastSeq + 1 });
    h.server.enqueue({ chunks: [{ text: 'fine' }, { finish: 'stop' }] });
    await restarted.handlers.sendPrompt({ sessionId: h.session.id, text: 'after crash' });
    await restarted.turnDone(h.session.id);
    const messages = h.server.requests.at(-1)!.body.messages;
    expect(messages.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'lost' });
    await restarted.close();
  });

  it('writes after a torn last line start on a line of their own, so the next load loses nothing', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('q');
    await h.core.close();
    const log = join(workspaceSessionsDir(h.home, h.workspace), h.session.id, LOG_FILE);
    const crashed = JSON.stringify({
      r: 'event',
      e: { type: 'turn.started', sessionId: h.session.id, seq: 100, at: 1, turnId: 'turn-crash', text: 'crash', attachments: [], origin: 'user' },
    });
    await appendFile(log, `${crashed}\n{"r":"event","e":{"type":"assi`);

    const first = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, retry: fastRetry, capabilities: testCapabilities });
    expect((await first.handlers.openSession({ sessionId: h.session.id })).problems).toEqual([]);
    h.server.enqueue({ chunks: [{ text: 'fine' }, { finish: 'stop' }] });
    await first.handlers.sendPrompt({ sessionId: h.session.id, text: 'after crash' });
    await first.turnDone(h.session.id);
    await first.close();

    const second = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: testCapabilities,
    });
    const reopened = await second.handlers.openSession({ sessionId: h.session.id });
    expect(reopened.problems).toEqual([]);
    const ends = reopened.events.filter((e) => e.type === 'turn.ended' && e.turnId === 'turn-crash');
    expect(ends).toHaveLength(1);
    expect(reopened.events.filter((e) => e.type === 'turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
    await second.close();
  });

  it('reconnecting UIs get only what they missed, or a reset inside a merged delta', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [...textChunks('abcdefgh', 2), { finish: 'stop' }] });
    await h.run('q');
    const all = (await h.core.handlers.openSession({ sessionId: h.session.id })).events;
    const last = all.at(-1)!.seq;
    expect(await h.core.handlers.openSession({ sessionId: h.session.id, afterSeq: last })).toMatchObject({ events: [], reset: false });
    const delta = all.find((e) => e.type === 'assistant.delta') as Extract<SessionEvent, { type: 'assistant.delta' }>;
    expect(delta.fromSeq).toBeLessThan(delta.seq);
    expect((await h.core.handlers.openSession({ sessionId: h.session.id, afterSeq: delta.fromSeq! })).reset).toBe(true);
    const tail = await h.core.handlers.openSession({ sessionId: h.session.id, afterSeq: delta.seq });
    expect(tail.reset).toBe(false);
    expect(tail.events[0]!.seq).toBe(delta.seq + 1);
  });

  it('deletes a session and refuses ids that are not session ids', async () => {
    h = await createHarness();
    await h.core.handlers.deleteSession({ sessionId: h.session.id });
    expect((await h.core.handlers.listSessions({})).sessions).toEqual([]);
    await expect(h.core.handlers.openSession({ sessionId: '../../etc' })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(h.core.handlers.openSession({ sessionId: 'missing' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('settings', () => {
  it('keeps the API key out of what the UI sees and stores it 0600', async () => {
    h = await createHarness();
    const settings = await h.core.handlers.getSettings({});
    expect(settings.provider).toMatchObject({ hasApiKey: true, apiKeySource: 'stored', model: 'mock-model' });
    expect(JSON.stringify(settings)).not.toContain('test-key');
    const { stat } = await import('node:fs/promises');
    expect((await stat(join(h.home, 'secrets.json'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(h.home, 'settings.json'), 'utf8')).not.toContain('test-key');
  });

  it('lists models of the configured server', async () => {
    h = await createHarness();
    expect(await h.core.handlers.listModels({})).toEqual({ models: ['mock-model', 'mock-model-large'] });
  });

  it('says clearly when nothing is configured', async () => {
    h = await createHarness();
    // Without checkpoints (as the harness runs), and closed: a store left opening under the temp folder would race its removal.
    const bare = new DeftCore({ home: h.workspace, workspace: h.workspace, host: cliHost(), secrets: h.secrets, capabilities: testCapabilities });
    const { session } = await bare.handlers.createSession({});
    await expect(bare.handlers.sendPrompt({ sessionId: session.id, text: 'hi' })).rejects.toMatchObject({ code: 'not_configured' });
    await bare.close();
  });
});

describe('over-long tool output', () => {
  it('is saved under the session with a plain file name, even when the model made up the tool name', async () => {
    h = await createHarness({ tools: () => testTools });
    const name = `${'../'.repeat(30)}${h.home.slice(1)}/escaped${'/.'.repeat(30_000)}`;
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'c/../1', name, args: '{}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    await mkdir(join(h.home, 'escaped'));
    await h.run('go');
    expect(await readdir(join(h.home, 'escaped'))).toEqual([]);
    const saved = await readdir(join(workspaceSessionsDir(h.home, h.workspace), h.session.id, 'tool-results'));
    expect(saved).toEqual([`${'_'.repeat(80)}-c____1.txt`]);
  });
});

describe('tool call ids', () => {
  it('are made unique when a server repeats them across steps', async () => {
    h = await createHarness({ tools: () => testTools });
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'call_0', name: 'Echo', args: '{"text":"one"}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ toolCall: { id: 'call_0', name: 'Echo', args: '{"text":"two"}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'done' }, { finish: 'stop' }] },
    );
    await h.run('twice');
    const ids = h.sessionEvents('tool.call.started').map((e) => (e as { callId: string }).callId);
    expect(ids[0]).toBe('call_0');
    expect(ids[1]).toMatch(/^call_0_[0-9a-f]{8}$/);
    const last = h.server.requests.at(-1)!.body.messages;
    expect(last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(ids);
  });
});

describe('commands', () => {
  it('a core with the default capabilities serves every command of the protocol', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    const handlers = h.core.handlers as unknown as Record<string, unknown>;
    expect(Object.keys(commandSchemas()).filter((name) => typeof handlers[name] !== 'function')).toEqual([]);
  });
});
