import { afterEach, describe, expect, it } from 'vitest';
import { dispatchCommand } from '../../../host/dispatch';
import { createHarness } from '#test-support/harness';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('probing a provider before saving it', () => {
  it('lists models with no model name typed yet', async () => {
    h = await createHarness();
    const reply = await dispatchCommand(h.core.handlers, 'listModels', { provider: { kind: 'openai', baseUrl: h.baseUrl, model: '' } });
    expect(reply).toEqual({ ok: true, result: { models: ['mock-model', 'mock-model-large'] } });
    const noModelField = await dispatchCommand(h.core.handlers, 'listModels', { provider: { kind: 'openai', baseUrl: h.baseUrl } });
    expect(noModelField).toMatchObject({ ok: true });
  });

  it('tests a connection with one tiny request, and says exactly what failed', async () => {
    h = await createHarness();
    h.server.enqueue({ chunks: [{ text: 'OK' }, { finish: 'stop' }] });
    const ok = await dispatchCommand(h.core.handlers, 'testConnection', { provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'mock-model', apiKey: 'k' } });
    expect(ok).toMatchObject({ ok: true, result: { model: 'mock-model', reply: 'OK' } });
    const sent = h.server.requests.at(-1)!;
    expect(sent.body.tools).toBeUndefined();
    expect(sent.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'OK?' });

    h.server.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key' } }) });
    const denied = await dispatchCommand(h.core.handlers, 'testConnection', {
      provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'mock-model', apiKey: 'bad' },
    });
    expect(denied).toMatchObject({ ok: false, error: { code: 'provider_auth', message: expect.stringContaining('Invalid API key') } });

    h.server.enqueue({ status: 404, body: JSON.stringify({ error: { message: 'The model `nope` does not exist' } }) });
    const missing = await dispatchCommand(h.core.handlers, 'testConnection', { provider: { kind: 'openai', baseUrl: h.baseUrl, model: 'nope' } });
    expect(missing).toMatchObject({ ok: false, error: { message: expect.stringContaining('nope') } });

    const unreachable = await dispatchCommand(h.core.handlers, 'testConnection', {
      provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
    });
    expect(unreachable).toMatchObject({ ok: false, error: { code: 'provider_unreachable' } });
    // Nothing was saved by testing.
    expect((await h.core.handlers.getSettings({})).provider?.model).toBe('mock-model');
    expect(await dispatchCommand(h.core.handlers, 'testConnection', { provider: { kind: 'openai', baseUrl: 'not a url', model: 'm' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
  });
});
