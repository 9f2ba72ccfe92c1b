import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply } from '#test-support/mock-steps';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const lastBody = (hh: Harness) => hh.server.requests.at(-1)!.body;

describe('reasoning effort reaches the request', () => {
  it('OpenAI-compatible: reasoning_effort per session (max is xhigh), nothing when off or unset', async () => {
    h = await createHarness();
    const hh = h;
    const sessionId = hh.session.id;
    await hh.run('no setting');
    expect(lastBody(hh)).not.toHaveProperty('reasoning_effort');
    const { session } = await hh.core.handlers.setSessionEffort({ sessionId, effort: 'high' });
    expect(session.effort).toBe('high');
    await hh.run('think hard');
    expect(lastBody(hh).reasoning_effort).toBe('high');
    await hh.core.handlers.setSessionEffort({ sessionId, effort: 'max' });
    await hh.run('think harder');
    expect(lastBody(hh).reasoning_effort).toBe('xhigh');
    await hh.core.handlers.setSessionEffort({ sessionId, effort: 'off' });
    await hh.run('no thinking');
    expect(lastBody(hh)).not.toHaveProperty('reasoning_effort');
  });

  it('the settings give the default, per model; the session overrides it', async () => {
    h = await createHarness();
    const hh = h;
    const settings = JSON.parse(await readFile(join(hh.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(hh.home, 'settings.json'), JSON.stringify({ ...settings, effort: { default: 'low', models: { 'mock-model-large': 'high' } } }));
    await hh.run('default');
    expect(lastBody(hh).reasoning_effort).toBe('low');
    await hh.core.handlers.setSessionModel({ sessionId: hh.session.id, model: 'mock-model-large' });
    await hh.run('per model');
    expect(lastBody(hh).reasoning_effort).toBe('high');
    await hh.core.handlers.setSessionEffort({ sessionId: hh.session.id, effort: 'medium' });
    await hh.run('session wins');
    expect(lastBody(hh).reasoning_effort).toBe('medium');
  });

  it('a server that rejects the field is asked once more without it, the user gets a note, and it is not sent again for that model', async () => {
    h = await createHarness();
    const hh = h;
    await hh.core.handlers.setSessionEffort({ sessionId: hh.session.id, effort: 'medium' });
    hh.server.enqueue(
      { status: 400, body: JSON.stringify({ error: { message: 'Unrecognized request argument supplied: reasoning_effort' } }) },
      textReply('answered without it'),
    );
    await hh.run('first');
    expect(hh.server.requests).toHaveLength(2);
    expect(hh.server.requests[0]!.body.reasoning_effort).toBe('medium');
    expect(hh.server.requests[1]!.body).not.toHaveProperty('reasoning_effort');
    const notes = hh.sessionEvents('step.note');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ message: expect.stringContaining('does not accept reasoning_effort') });
    expect(hh.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
    await hh.run('second');
    expect(lastBody(hh)).not.toHaveProperty('reasoning_effort');
    expect(hh.sessionEvents('step.note')).toHaveLength(1);
  });

  it('Anthropic: thinking with a budget from the effort, max_tokens raised to fit, thinking blocks sent back with their signatures', async () => {
    h = await createHarness();
    const hh = h;
    await hh.core.handlers.setSettings({ provider: { kind: 'anthropic', baseUrl: hh.baseUrl, model: 'mock-model', apiKey: 'test-key' } });
    await hh.run('plain');
    expect(lastBody(hh)).not.toHaveProperty('thinking');
    expect(lastBody(hh).max_tokens).toBe(8192);
    await hh.core.handlers.setSessionEffort({ sessionId: hh.session.id, effort: 'medium' });
    await writeFile(join(hh.workspace, 'a.txt'), 'alpha\n');
    hh.server.enqueue(
      { chunks: [{ thinking: 'I should read a.txt first.' }, callChunk('Read', { path: 'a.txt' }), { finish: 'tool_calls' }] },
      textReply('It says alpha.'),
    );
    await hh.run('what is in a.txt?');
    const [first, second] = hh.server.requests.slice(-2).map((r) => r.body);
    expect(first!.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(first!.max_tokens).toBe(8192 + 8192);
    const assistant = second!.messages.filter((m) => m.role === 'assistant').at(-1)!;
    expect((assistant.content as Array<{ type: string }>)[0]).toEqual({ type: 'thinking', thinking: 'I should read a.txt first.', signature: 'sig-mock' });
    // The reasoning streamed to the window as thinking.
    expect(
      hh
        .sessionEvents('thinking.delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toContain('I should read a.txt first.');
  });

  it('Anthropic: a server that refuses thinking is asked again without it and the plain max_tokens', async () => {
    h = await createHarness();
    const hh = h;
    await hh.core.handlers.setSettings({ provider: { kind: 'anthropic', baseUrl: hh.baseUrl, model: 'mock-model', apiKey: 'test-key' } });
    await hh.core.handlers.setSessionEffort({ sessionId: hh.session.id, effort: 'high' });
    hh.server.enqueue(
      { status: 400, body: JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'thinking: Extra inputs are not permitted' } }) },
      textReply('fine'),
    );
    await hh.run('go');
    expect(hh.server.requests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    expect(hh.server.requests[1]!.body).not.toHaveProperty('thinking');
    expect(hh.server.requests[1]!.body.max_tokens).toBe(8192);
    expect(hh.sessionEvents('step.note')).toHaveLength(1);
  });
});
