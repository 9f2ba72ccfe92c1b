import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { ANTHROPIC_VERSION, AnthropicProvider, toAnthropicMessages } from './anthropic';
import type { ProviderError } from './errors';
import type { StepRequest } from '#contract/model';

const server = new MockModelServer();
let provider: AnthropicProvider;
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  provider = new AnthropicProvider({ baseUrl: server.baseUrl, model: 'claude-test', apiKey: 'sk-ant' });
});

const request = (overrides: Partial<StepRequest> = {}): StepRequest => ({
  system: 'You are Deft.',
  messages: [{ role: 'user', content: 'hello' }],
  tools: [{ name: 'Echo', description: 'Echo text', parameters: { type: 'object', properties: { text: { type: 'string' } } } }],
  signal: new AbortController().signal,
  ...overrides,
});

async function step(overrides: Partial<StepRequest> = {}) {
  const text: string[] = [];
  const thinking: string[] = [];
  const calls: string[] = [];
  const result = await provider.step(request(overrides), {
    onText: (t) => text.push(t),
    onThinking: (t) => thinking.push(t),
    onToolCall: (n) => calls.push(n),
  });
  return { result, text, thinking, calls };
}

describe('AnthropicProvider', () => {
  it('streams text and thinking, keeps the thinking signature, and reports usage', async () => {
    server.enqueue({
      chunks: [
        { thinking: 'Let me think.' },
        ...textChunks('Hello from Claude.', 4),
        { finish: 'stop' },
        { usage: { prompt_tokens: 20, completion_tokens: 7 } },
      ],
    });
    const { result, text, thinking } = await step();
    expect(text.join('')).toBe('Hello from Claude.');
    expect(thinking.join('')).toBe('Let me think.');
    expect(result).toMatchObject({
      finishReason: 'end_turn',
      rawFinishReason: 'end_turn',
      reasoningSignature: 'sig-mock',
      usage: { inputTokens: 20, outputTokens: 7 },
    });
  });

  it('sends the Messages request: key header, version, system, max_tokens, tools with input_schema', async () => {
    server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await step();
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe('sk-ant');
    expect(sent.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    // Cache breakpoints: on the system prompt, the tools and the last message.
    const cache = { cache_control: { type: 'ephemeral' } };
    expect(sent.body).toMatchObject({
      model: 'claude-test',
      system: [{ type: 'text', text: 'You are Deft.', ...cache }],
      stream: true,
      max_tokens: 8192,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello', ...cache }] }],
    });
    expect(sent.body.tools).toEqual([
      { name: 'Echo', description: 'Echo text', input_schema: { type: 'object', properties: { text: { type: 'string' } } }, ...cache },
    ]);
  });

  it('assembles tool input from input_json_delta pieces, saying when a call begins', async () => {
    server.enqueue({
      chunks: [{ text: 'Calling.' }, { toolCall: { id: 'toolu_1', name: 'Echo', args: '{"text":"in many pieces"}', pieces: 6 } }, { finish: 'tool_calls' }],
    });
    const { result, calls } = await step();
    expect(calls).toEqual(['Echo']);
    expect(result.finishReason).toBe('tool_use');
    expect(result.toolCalls).toEqual([{ id: 'toolu_1', name: 'Echo', arguments: '{"text":"in many pieces"}' }]);
  });

  it('maps an overloaded error event to a retryable server error, and a cut stream to broken', async () => {
    server.enqueue({ chunks: [{ text: 'a' }, { raw: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) }] });
    const overloaded = (await step().catch((e: unknown) => e)) as ProviderError;
    expect(overloaded).toMatchObject({ code: 'provider_server', retryable: true });
    server.enqueue({ chunks: [...textChunks('partial'), { finish: 'stop' }], cutAfter: 2 });
    expect(((await step().catch((e: unknown) => e)) as ProviderError).code).toBe('provider_stream_broken');
  });

  it('says to check the key on a 401', async () => {
    server.enqueue({ status: 401, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }) });
    const error = (await step().catch((e: unknown) => e)) as ProviderError;
    expect(error.code).toBe('provider_auth');
    expect(error.message).toContain('invalid x-api-key');
  });
});

describe('toAnthropicMessages', () => {
  it('puts tool results in user messages, merges roles, drops empty text, and sends thinking only with a signature', () => {
    const wire = toAnthropicMessages([
      { role: 'user', content: 'read it' },
      {
        role: 'assistant',
        content: '',
        reasoning: 'plan',
        reasoningSignature: 'sig',
        toolCalls: [
          { id: 't1', name: 'Read', arguments: '{"path":"a"}' },
          { id: 't2', name: 'Echo', arguments: 'not json' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 't1',
        toolName: 'Read',
        content: [
          { type: 'text', text: 'file' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
      },
      { role: 'tool', toolCallId: 't2', toolName: 'Echo', content: 'bad args', isError: true },
      { role: 'user', content: '<notification>done</notification>' },
      { role: 'assistant', content: 'answer', reasoning: 'unsigned thoughts' },
    ]);
    expect(wire.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(wire[1]!.content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 'sig' },
      { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'a' } },
      { type: 'tool_use', id: 't2', name: 'Echo', input: {} },
    ]);
    expect(wire[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(wire[2]!.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: [
        { type: 'text', text: 'file' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ],
    });
    expect(wire[2]!.content[1]).toMatchObject({ is_error: true });
    expect(wire[3]!.content).toEqual([{ type: 'text', text: 'answer' }]);
  });
});
