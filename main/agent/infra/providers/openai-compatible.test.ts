import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { type ProviderError } from './errors';
import { OpenAICompatibleProvider, toWireMessages } from './openai-compatible';
import type { StepRequest } from '#contract/model';

const server = new MockModelServer();
let provider: OpenAICompatibleProvider;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  provider = new OpenAICompatibleProvider({ baseUrl: `${server.baseUrl}/`, model: 'mock-model', apiKey: 'sk-test' });
});

const request = (overrides: Partial<StepRequest> = {}): StepRequest => ({
  system: 'sys',
  messages: [{ role: 'user', content: 'hello' }],
  tools: [{ name: 'Echo', description: 'Echo', parameters: { type: 'object', properties: {} } }],
  signal: new AbortController().signal,
  ...overrides,
});

async function step(overrides: Partial<StepRequest> = {}) {
  const text: string[] = [];
  const thinking: string[] = [];
  const result = await provider.step(request(overrides), { onText: (t) => text.push(t), onThinking: (t) => thinking.push(t) });
  return { result, text, thinking };
}

async function failure(): Promise<ProviderError> {
  try {
    await step();
  } catch (error) {
    return error as ProviderError;
  }
  throw new Error('expected the step to fail');
}

describe('OpenAICompatibleProvider', () => {
  it('streams text deltas and normalises the finish reason and usage', async () => {
    server.enqueue({ chunks: [...textChunks('Hello there, world', 4), { finish: 'stop' }, { usage: { prompt_tokens: 12, completion_tokens: 5 } }] });
    const { result, text } = await step();
    expect(text.join('')).toBe('Hello there, world');
    expect(text.length).toBeGreaterThan(3);
    expect(result).toMatchObject({
      text: 'Hello there, world',
      finishReason: 'end_turn',
      rawFinishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 5 },
    });
  });

  it('sends stream:true, the bearer key, the system prompt first, and tools as functions', async () => {
    server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await step();
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-test');
    expect(sent.body).toMatchObject({
      model: 'mock-model',
      stream: true,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hello' },
      ],
    });
    expect(sent.body.tools).toEqual([{ type: 'function', function: { name: 'Echo', description: 'Echo', parameters: { type: 'object', properties: {} } } }]);
  });

  it('assembles tool-call arguments split across many chunks, for several calls', async () => {
    server.enqueue({
      chunks: [
        { toolCall: { id: 'call_a', name: 'Echo', args: '{"text":"first call with a long argument"}', pieces: 7 } },
        { toolCall: { id: 'call_b', name: 'Wait', args: '{"ms":5}', pieces: 3 } },
        { finish: 'tool_calls' },
      ],
    });
    const { result } = await step();
    expect(result.finishReason).toBe('tool_use');
    expect(result.toolCalls).toEqual([
      { id: 'call_a', name: 'Echo', arguments: '{"text":"first call with a long argument"}' },
      { id: 'call_b', name: 'Wait', arguments: '{"ms":5}' },
    ]);
  });

  it('reports reasoning_content and reasoning deltas as thinking', async () => {
    server.enqueue({
      chunks: [{ thinking: 'Let me see. ' }, { raw: JSON.stringify({ choices: [{ delta: { reasoning: 'Done.' } }] }) }, { text: 'Answer' }, { finish: 'stop' }],
    });
    const { result, thinking } = await step();
    expect(thinking.join('')).toBe('Let me see. Done.');
    expect(result.reasoning).toBe('Let me see. Done.');
    expect(result.text).toBe('Answer');
  });

  it('reads usage reported inside the choice (Moonshot style)', async () => {
    server.enqueue({
      chunks: [{ raw: JSON.stringify({ choices: [{ delta: { content: 'x' }, finish_reason: 'stop', usage: { prompt_tokens: 3, completion_tokens: 1 } }] }) }],
    });
    const { result } = await step();
    expect(result.usage).toEqual({ inputTokens: 3, outputTokens: 1 });
  });

  it('reads cached prompt tokens where each provider reports them (OpenAI, Moonshot, DeepSeek)', async () => {
    const usages = [
      { prompt_tokens: 50, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 40 } },
      { prompt_tokens: 50, completion_tokens: 2, cached_tokens: 30 },
      { prompt_tokens: 50, completion_tokens: 2, prompt_cache_hit_tokens: 20, prompt_cache_miss_tokens: 30 },
    ];
    const cached: Array<number | undefined> = [];
    for (const usage of usages) {
      server.enqueue({
        chunks: [{ raw: JSON.stringify({ choices: [{ delta: { content: 'x' }, finish_reason: 'stop' }] }) }, { raw: JSON.stringify({ choices: [], usage }) }],
      });
      cached.push((await step()).result.usage?.cachedTokens);
    }
    expect(cached).toEqual([40, 30, 20]);
  });

  it('maps 401 to an auth error that says what to fix, without retry', async () => {
    server.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key' } }) });
    const error = await failure();
    expect(error.code).toBe('provider_auth');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('Open Settings and check the API key');
    expect(error.message).toContain('Invalid API key');
  });

  it('maps 404 to a base URL / model hint', async () => {
    server.enqueue({ status: 404, body: 'Not Found' });
    const error = await failure();
    expect(error.code).toBe('provider_not_found');
    expect(error.message).toMatch(/Check the base URL .* model "mock-model"/);
  });

  it('reads error bodies whatever the shape of their message (FastAPI/vLLM detail arrays, objects), without retrying a 422', async () => {
    server.enqueue({ status: 422, body: '{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"},{"msg":"bad temperature"}]}' });
    let error = await failure();
    expect(error).toMatchObject({ code: 'provider_bad_request', retryable: false });
    expect(error.message).toMatch(/\(HTTP 422\)\. The server said: body\.model: Field required; bad temperature$/);
    server.enqueue({ status: 400, body: '{"error":{"message":{"reason":"too long"}}}' });
    error = await failure();
    expect(error.message).toMatch(/The server said: \{"reason":"too long"\}$/);
  });

  it('makes 429 retryable with Retry-After, but not an exhausted quota', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '3' }, body: '{"error":{"message":"slow down"}}' });
    const limited = await failure();
    expect(limited.code).toBe('provider_rate_limit');
    expect(limited.retryable).toBe(true);
    expect(limited.options.retryAfterMs).toBe(3000);
    server.enqueue({ status: 429, body: '{"error":{"message":"You exceeded your current quota"}}' });
    const quota = await failure();
    expect(quota.code).toBe('provider_quota');
    expect(quota.retryable).toBe(false);
  });

  it('makes 5xx retryable', async () => {
    server.enqueue({ status: 503 });
    const error = await failure();
    expect(error.code).toBe('provider_server');
    expect(error.retryable).toBe(true);
  });

  it('reports a stream cut before the end as broken (retryable)', async () => {
    server.enqueue({ chunks: [...textChunks('partial answer'), { finish: 'stop' }], cutAfter: 2 });
    const error = await failure();
    expect(error.code).toBe('provider_stream_broken');
    expect(error.retryable).toBe(true);
  });

  it('reports a chunk that is not JSON, and an error sent mid-stream', async () => {
    server.enqueue({ chunks: [{ raw: '{not json' }] });
    expect((await failure()).message).toContain('not JSON');
    server.enqueue({ chunks: [{ text: 'a' }, { raw: JSON.stringify({ error: { message: 'overloaded' } }) }] });
    expect((await failure()).message).toContain('overloaded');
  });

  it('explains an unreachable host', async () => {
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    provider = new OpenAICompatibleProvider({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' });
    const error = await failure();
    expect(error.code).toBe('provider_unreachable');
    expect(error.message).toBe(`Could not reach 127.0.0.1:${port}: the connection was refused — is the server running?`);
  });

  it('times out when the server goes silent', async () => {
    provider = new OpenAICompatibleProvider({ baseUrl: server.baseUrl, model: 'm', idleTimeoutMs: 100 });
    server.enqueue({ chunks: [{ text: 'a' }, { text: 'b' }, { finish: 'stop' }], delayMs: 400 });
    const error = await failure();
    expect(error.code).toBe('provider_timeout');
  });

  it('stops at once when the signal aborts', async () => {
    server.enqueue({ chunks: [...textChunks('x'.repeat(400), 4), { finish: 'stop' }], delayMs: 20 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user cancel')), 60);
    const started = Date.now();
    await expect(step({ signal: controller.signal })).rejects.toThrow('user cancel');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('lists models', async () => {
    expect(await provider.listModels()).toEqual(['mock-model', 'mock-model-large']);
  });
});

describe('toWireMessages', () => {
  it('sends tool results as plain strings and images from tools in one user message after them', () => {
    const wire = toWireMessages('sys', [
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: '',
        reasoning: 'r',
        toolCalls: [
          { id: 'a', name: 'ReadMediaFile', arguments: '{}' },
          { id: 'b', name: 'Echo', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'a',
        toolName: 'ReadMediaFile',
        content: [
          { type: 'text', text: 'image:' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      },
      { role: 'tool', toolCallId: 'b', toolName: 'Echo', content: 'done' },
      { role: 'assistant', content: 'seen' },
    ]);
    expect(wire.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user', 'assistant']);
    expect(wire[2]).toMatchObject({ content: null, reasoning_content: 'r' });
    expect(wire[3]).toEqual({ role: 'tool', tool_call_id: 'a', content: 'image:' });
    expect(wire[4]).toEqual({ role: 'tool', tool_call_id: 'b', content: 'done' });
    expect(wire[5]!.content).toEqual([
      { type: 'text', text: 'Images returned by the tool calls above:' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
  });
});
