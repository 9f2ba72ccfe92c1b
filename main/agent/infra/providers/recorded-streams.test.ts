import { describe, expect, it } from 'vitest';
import { AnthropicProvider } from './anthropic';
import { ProviderError, errorFromResponse } from './errors';
import { OpenAICompatibleProvider } from './openai-compatible';
import type { StepRequest } from '#contract/model';

/** A fetch that answers each call with the next scripted response; the body arrives in the given pieces. */
function scriptedFetch(...replies: Array<{ status?: number; pieces?: string[]; body?: string; headers?: Record<string, string> }>) {
  const requests: Array<{ url: string; body: Record<string, unknown>; headers: Record<string, string> }> = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    requests.push({ url, body: JSON.parse(init.body as string) as Record<string, unknown>, headers: init.headers as Record<string, string> });
    const reply = replies.shift();
    if (!reply) throw new Error('no scripted reply left');
    const encoder = new TextEncoder();
    const pieces = reply.pieces ?? [reply.body ?? ''];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece));
        controller.close();
      },
    });
    return new Response(body, { status: reply.status ?? 200, headers: reply.headers ?? { 'content-type': 'text/event-stream' } });
  }) as unknown as typeof fetch;
  return { fetchImpl, requests };
}

const sse = (events: unknown[], eol = '\n') => events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}${eol}${eol}`).join('');
/** Cut a body into pieces of `size` characters, so JSON and line endings split across reads. */
const split = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

const request = (overrides: Partial<StepRequest> = {}): StepRequest => ({
  system: 'sys',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ name: 'Read', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
  signal: new AbortController().signal,
  ...overrides,
});

async function run(provider: { step: OpenAICompatibleProvider['step'] }, overrides: Partial<StepRequest> = {}) {
  const text: string[] = [];
  const thinking: string[] = [];
  const result = await provider.step(request(overrides), { onText: (t) => text.push(t), onThinking: (t) => thinking.push(t) });
  return { result, text: text.join(''), thinking: thinking.join('') };
}

const openai = (fetchImpl: typeof fetch) => new OpenAICompatibleProvider({ baseUrl: 'http://model.test/v1', model: 'm', apiKey: 'k', fetch: fetchImpl });
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('OpenAI-compatible streams as servers send them', () => {
  it('reads an OpenAI stream: role chunk, two calls in one chunk, id only first, usage with empty choices, CRLF, split reads', async () => {
    const body =
      ': keep-alive\r\n\r\n' +
      sse(
        [
          chunk({ role: 'assistant', content: null }),
          chunk({
            tool_calls: [
              { index: 0, id: 'call_A', type: 'function', function: { name: 'Read', arguments: '' } },
              { index: 1, id: 'call_B', type: 'function', function: { name: 'Read', arguments: '{"pa' } },
            ],
          }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":"a.ts"}' } }] }),
          chunk({ tool_calls: [{ index: 1, function: { arguments: 'th":"b.ts"}' } }] }),
          chunk({}, 'tool_calls'),
          {
            id: 'c1',
            object: 'chat.completion.chunk',
            choices: [],
            usage: { prompt_tokens: 40, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 32 } },
          },
          '[DONE]',
        ],
        '\r\n',
      );
    const { fetchImpl, requests } = scriptedFetch({ pieces: split(body, 7) });
    const { result } = await run(openai(fetchImpl));
    expect(result.toolCalls).toEqual([
      { id: 'call_A', name: 'Read', arguments: '{"path":"a.ts"}' },
      { id: 'call_B', name: 'Read', arguments: '{"path":"b.ts"}' },
    ]);
    expect(result).toMatchObject({ finishReason: 'tool_use', rawFinishReason: 'tool_calls', usage: { inputTokens: 40, outputTokens: 9, cachedTokens: 32 } });
    expect(requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('reads Kimi/DeepSeek reasoning_content, then content, and finish_reason length', async () => {
    const { fetchImpl } = scriptedFetch({
      body: sse([
        chunk({ role: 'assistant', reasoning_content: 'Think' }),
        chunk({ reasoning_content: 'ing.' }),
        chunk({ content: 'Ans' }),
        chunk({ content: 'wer' }, 'length'),
        '[DONE]',
      ]),
    });
    const { result, thinking, text } = await run(openai(fetchImpl));
    expect(thinking).toBe('Thinking.');
    expect(text).toBe('Answer');
    expect(result.finishReason).toBe('max_tokens');
  });

  it('maps content_filter and the legacy function_call finish reasons', async () => {
    const { fetchImpl } = scriptedFetch({ body: sse([chunk({ content: 'x' }, 'content_filter'), '[DONE]']) });
    expect((await run(openai(fetchImpl))).result.finishReason).toBe('filtered');
  });

  it('does not double a tool name that the server repeats in every delta (MiniMax via NIM, some GPT-5 streams)', async () => {
    const { fetchImpl } = scriptedFetch({
      body: sse([
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'Read', arguments: '{"path":' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'Read', arguments: '"a"}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ]),
    });
    expect((await run(openai(fetchImpl))).result.toolCalls).toEqual([{ id: 'call_1', name: 'Read', arguments: '{"path":"a"}' }]);
  });

  it('still joins a tool name streamed in pieces', async () => {
    const { fetchImpl } = scriptedFetch({
      body: sse([
        chunk({ tool_calls: [{ index: 0, id: 'call_1', function: { name: 'Re', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: 'ad', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    });
    expect((await run(openai(fetchImpl))).result.toolCalls).toEqual([{ id: 'call_1', name: 'Read', arguments: '{}' }]);
  });

  it('keeps parallel calls apart when the server numbers every call index 0 (Ollama #15457)', async () => {
    const { fetchImpl } = scriptedFetch({
      body: sse([
        chunk({ tool_calls: [{ id: 'call_x', index: 0, type: 'function', function: { name: 'Read', arguments: '{"path":"a"}' } }] }),
        chunk({ tool_calls: [{ id: 'call_y', index: 0, type: 'function', function: { name: 'Read', arguments: '{"path":"b"}' } }] }),
        chunk({}, 'stop'),
        '[DONE]',
      ]),
    });
    const { result } = await run(openai(fetchImpl));
    expect(result.toolCalls).toEqual([
      { id: 'call_x', name: 'Read', arguments: '{"path":"a"}' },
      { id: 'call_y', name: 'Read', arguments: '{"path":"b"}' },
    ]);
    expect(result.finishReason).toBe('tool_use');
  });

  it('keeps one call when fragments at one index carry fresh ids but no name (LM Studio)', async () => {
    const { fetchImpl } = scriptedFetch({
      body: sse([
        chunk({ tool_calls: [{ id: 'id1', index: 0, function: { name: 'Read', arguments: '' } }] }),
        chunk({ tool_calls: [{ id: 'id2', index: 0, function: { name: '', arguments: '{"path"' } }] }),
        chunk({ tool_calls: [{ id: 'id3', index: 0, function: { arguments: ':"a"}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    });
    const { result } = await run(openai(fetchImpl));
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ name: 'Read', arguments: '{"path":"a"}' });
  });

  it('reports an error sent inside the stream (OpenRouter style) as a retryable server error', async () => {
    const { fetchImpl } = scriptedFetch({
      body:
        ': OPENROUTER PROCESSING\n\n' +
        sse([
          chunk({ content: 'par' }),
          { error: { code: 502, message: 'Provider disconnected' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] },
        ]),
    });
    const error = (await run(openai(fetchImpl)).catch((e: unknown) => e)) as ProviderError;
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('Provider disconnected');
  });

  it('does not retry a request OpenRouter refuses mid-stream (4xx code inside the error), but retries a 429 there', async () => {
    const { fetchImpl } = scriptedFetch(
      {
        body: sse([{ error: { code: 403, message: 'Input flagged by moderation' }, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }] }]),
      },
      { body: sse([{ error: { code: 429, message: 'Rate limit exceeded upstream' } }]) },
    );
    const provider = openai(fetchImpl);
    const refused = (await run(provider).catch((e: unknown) => e)) as ProviderError;
    expect(refused).toMatchObject({ retryable: false });
    expect(refused.message).toContain('Input flagged by moderation');
    const limited = (await run(provider).catch((e: unknown) => e)) as ProviderError;
    expect(limited).toMatchObject({ code: 'provider_rate_limit', retryable: true });
  });

  it('drops stream_options and retries once when the server rejects it as an unknown field (Azure AI)', async () => {
    const { fetchImpl, requests } = scriptedFetch(
      {
        status: 400,
        body: JSON.stringify({
          detail:
            "Extra parameters ['stream_options'] are not allowed when extra-parameters is not set or set to be 'error'. Set extra-parameters to 'pass-through' to pass to the model.",
        }),
        headers: { 'content-type': 'application/json' },
      },
      { body: sse([chunk({ content: 'ok' }, 'stop'), '[DONE]']) },
      { body: sse([chunk({ content: 'again' }, 'stop'), '[DONE]']) },
    );
    const provider = openai(fetchImpl);
    expect((await run(provider)).text).toBe('ok');
    expect(requests[0]!.body.stream_options).toEqual({ include_usage: true });
    expect(requests[1]!.body).not.toHaveProperty('stream_options');
    expect((await run(provider)).text).toBe('again');
    expect(requests[2]!.body).not.toHaveProperty('stream_options');
  });

  it('does not retry other 400s', async () => {
    const { fetchImpl, requests } = scriptedFetch({ status: 400, body: '{"error":{"message":"messages: bad role"}}' });
    const error = (await run(openai(fetchImpl)).catch((e: unknown) => e)) as ProviderError;
    expect(error.code).toBe('provider_bad_request');
    expect(requests).toHaveLength(1);
  });

  it('reads Retry-After as an HTTP date', () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    const error = errorFromResponse(429, '{"error":{"message":"slow down"}}', new Headers({ 'retry-after': at }), { url: 'http://x/v1', model: 'm' });
    expect(error.options.retryAfterMs).toBeGreaterThan(25_000);
    expect(error.options.retryAfterMs).toBeLessThanOrEqual(30_000);
  });
});

const anthropic = (fetchImpl: typeof fetch) =>
  new AnthropicProvider({ baseUrl: 'https://api.anthropic.test/v1', model: 'claude', apiKey: 'k', fetch: fetchImpl });
const named = (events: Array<Record<string, unknown>>) => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

describe('Anthropic streams as the API sends them', () => {
  it('reads thinking with its signature, a tool_use built from input_json_delta, cache usage and stop_reason tool_use', async () => {
    const body = named([
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          usage: { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 5, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Plan.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAh' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'ping' },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path": "a' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '.ts"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
      { type: 'message_stop' },
    ]);
    const { fetchImpl, requests } = scriptedFetch({ pieces: split(body, 11) });
    const { result, thinking } = await run(anthropic(fetchImpl));
    expect(thinking).toBe('Plan.');
    expect(result).toMatchObject({
      reasoning: 'Plan.',
      reasoningSignature: 'EqQBCgIYAh',
      toolCalls: [{ id: 'toolu_1', name: 'Read', arguments: '{"path": "a.ts"}' }],
      finishReason: 'tool_use',
      usage: { inputTokens: 115, outputTokens: 42, cachedTokens: 100 },
    });
    expect(requests[0]!.headers).toMatchObject({ 'x-api-key': 'k', 'anthropic-version': '2023-06-01' });
    expect(requests[0]!.body).toMatchObject({ system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }], max_tokens: 8192, stream: true });
  });

  it('maps max_tokens, stop_sequence and refusal', async () => {
    for (const [raw, expected] of [
      ['max_tokens', 'max_tokens'],
      ['stop_sequence', 'end_turn'],
      ['refusal', 'filtered'],
    ] as const) {
      const { fetchImpl } = scriptedFetch({
        body: named([
          { type: 'message_start', message: { usage: { input_tokens: 1 } } },
          { type: 'message_delta', delta: { stop_reason: raw }, usage: { output_tokens: 1 } },
          { type: 'message_stop' },
        ]),
      });
      expect((await run(anthropic(fetchImpl))).result.finishReason).toBe(expected);
    }
  });

  it('makes a rate_limit_error sent mid-stream retryable, and an invalid_request_error not', async () => {
    const { fetchImpl } = scriptedFetch(
      {
        body: named([
          { type: 'message_start', message: { usage: { input_tokens: 1 } } },
          { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } },
        ]),
      },
      { body: named([{ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }]) },
    );
    const provider = anthropic(fetchImpl);
    const limited = (await run(provider).catch((e: unknown) => e)) as ProviderError;
    expect(limited).toMatchObject({ code: 'provider_rate_limit', retryable: true });
    const invalid = (await run(provider).catch((e: unknown) => e)) as ProviderError;
    expect(invalid).toMatchObject({ code: 'provider_bad_request', retryable: false });
  });
});

describe('Anthropic tool results the API accepts', () => {
  it('never sends an empty or whitespace-only tool_result, and keeps error results text-only', async () => {
    const { toAnthropicMessages } = await import('./anthropic');
    const wire = toAnthropicMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'a', name: 'Bash', arguments: '{}' },
          { id: 'b', name: 'Bash', arguments: '{}' },
          { id: 'c', name: 'ReadMediaFile', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'a', toolName: 'Bash', content: '' },
      { role: 'tool', toolCallId: 'b', toolName: 'Bash', content: '\n', isError: true },
      {
        role: 'tool',
        toolCallId: 'c',
        toolName: 'ReadMediaFile',
        content: [
          { type: 'text', text: 'too big' },
          { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        ],
        isError: true,
      },
    ]);
    const results = wire[2]!.content as Array<{ content: Array<{ type: string; text?: string }>; is_error?: boolean }>;
    for (const result of results) {
      expect(result.content.length).toBeGreaterThan(0);
      for (const block of result.content) if (block.type === 'text') expect(block.text!.trim()).not.toBe('');
    }
    expect(results[1]).toMatchObject({ is_error: true });
    expect(results[2]!.content).toEqual([{ type: 'text', text: 'too big' }]);
  });
});
