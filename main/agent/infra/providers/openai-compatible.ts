import type { Effort, FinishReason, Usage } from '#protocol';
import { type ProviderFetch, nodeFetch } from './node-fetch';
import { effortKey, effortRefused, noteEffortRefusal, openAiEffortFields, refusalNote } from './effort';
import { trimBaseUrl } from './base-url';
import { ProviderError, errorFromResponse, safeHost } from './errors';
import { type StreamTimeouts, getJson, parseChunk, streamSse } from './http';
import { modelInfosFrom } from './model-info';
import { ThinkTagSplitter } from './think-tags';
import type { ChatProvider, ContentPart, ModelInfo, ModelMessage, StepCallbacks, StepRequest, StepResult, ToolCallRequest } from '#contract/model';

export interface OpenAICompatibleOptions extends StreamTimeouts {
  baseUrl: string;
  model: string;
  apiKey?: string;
  imageInput?: boolean;
  /** How hard the model should think: `reasoning_effort` (or OpenRouter's `reasoning`) on every request. */
  effort?: Effort;
  fetch?: ProviderFetch;
}

type WireContent = string | null | Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }>;
interface WireMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: WireContent;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  reasoning_content?: string;
}

interface ChunkToolCall {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}
interface Chunk {
  error?: { message?: string; code?: string | number } | string;
  choices?: Array<{
    delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; tool_calls?: ChunkToolCall[] };
    finish_reason?: string | null;
    usage?: WireUsage;
  }>;
  usage?: WireUsage | null;
}
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
  /** Moonshot/Kimi. */
  cached_tokens?: number;
  /** DeepSeek. */
  prompt_cache_hit_tokens?: number;
}

/** Any endpoint that speaks OpenAI Chat Completions with streaming: OpenAI, Moonshot/Kimi, DeepSeek, OpenRouter, Ollama, vLLM, llama.cpp. */
export class OpenAICompatibleProvider implements ChatProvider {
  readonly kind = 'openai';
  readonly model: string;
  readonly capabilities;
  private readonly baseUrl: string;
  private readonly fetchImpl: ProviderFetch;
  /** Cleared once the server rejects `stream_options` as an unknown field (Azure AI, strict proxies). */
  private streamOptions = true;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.model = options.model;
    this.baseUrl = trimBaseUrl(options.baseUrl);
    this.capabilities = { imageInput: options.imageInput ?? false };
    this.fetchImpl = options.fetch ?? nodeFetch;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    return headers;
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    return (await this.listModelInfo(signal)).map((m) => m.id).sort();
  }

  async listModelInfo(signal?: AbortSignal): Promise<ModelInfo[]> {
    return modelInfosFrom(await getJson(this.fetchImpl, `${this.baseUrl}/models`, this.headers(), this.model, signal));
  }

  async step(request: StepRequest, callbacks: StepCallbacks): Promise<StepResult> {
    const url = `${this.baseUrl}/chat/completions`;
    const body: Record<string, unknown> = {
      model: this.model,
      messages: toWireMessages(request.system, request.messages),
      stream: true,
    };
    if (this.streamOptions) body.stream_options = { include_usage: true };
    if (request.tools.length) {
      body.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
    }
    if (request.maxOutputTokens) body.max_tokens = request.maxOutputTokens;
    const effort = this.options.effort ? openAiEffortFields(this.options.effort, this.baseUrl) : null;
    const refusedKey = effortKey(this.kind, this.baseUrl, this.model);
    if (effort && !effortRefused(refusedKey)) Object.assign(body, effort);
    const send = () =>
      streamSse({ ...this.options, fetch: this.fetchImpl, url, headers: this.headers(), body, model: this.model, signal: request.signal }, (data) =>
        this.readStream(data, callbacks, url),
      );
    try {
      return await send();
    } catch (error) {
      if (effort && Object.keys(effort).some((field) => field in body) && noteEffortRefusal(refusedKey, error, /reasoning/i)) {
        for (const field of Object.keys(effort)) delete body[field];
        callbacks.onNote?.(refusalNote(this.model, Object.keys(effort)[0]!));
        return send();
      }
      if (
        !this.streamOptions ||
        !(error instanceof ProviderError) ||
        (error.options.status !== 400 && error.options.status !== 422) ||
        !/stream_options/.test(error.message)
      )
        throw error;
      // Usage is then unknown for this provider, which is better than no answer at all.
      this.streamOptions = false;
      delete body.stream_options;
      return send();
    }
  }

  private async readStream(stream: AsyncIterable<string>, callbacks: StepCallbacks, url: string): Promise<StepResult> {
    const calls = new ToolCallAssembler();
    const think = new ThinkTagSplitter();
    let text = '';
    let reasoning = '';
    let usage: Usage | null = null;
    let rawFinish: string | null = null;
    let sawDone = false;
    const emitText = (t: string) => {
      if (!t) return;
      text += t;
      callbacks.onText(t);
    };
    const emitThinking = (t: string) => {
      if (!t) return;
      reasoning += t;
      callbacks.onThinking(t);
    };

    for await (const data of stream) {
      if (data.trim() === '[DONE]') {
        sawDone = true;
        break;
      }
      const chunk = parseChunk<Chunk>(data, url);
      if (chunk.error) {
        const message = typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? JSON.stringify(chunk.error));
        // OpenRouter sends HTTP-like codes here (400, 401, 402, 403 moderation, 408, 429, 502…): a refused request must not be retried.
        const code = typeof chunk.error === 'string' ? NaN : Number(chunk.error.code);
        if (code >= 400 && code < 500 && code !== 408)
          throw errorFromResponse(code, JSON.stringify({ error: { message } }), new Headers(), { url, model: this.model });
        throw new ProviderError('provider_server', `${safeHost(url)} reported an error mid-stream: ${message}`);
      }
      const choice = chunk.choices?.[0];
      const delta = choice?.delta;
      if (delta) {
        const thinking = delta.reasoning_content ?? delta.reasoning;
        if (thinking) emitThinking(thinking);
        if (delta.content) {
          for (const part of think.push(delta.content)) (part.thinking ? emitThinking : emitText)(part.text);
        }
        for (const call of delta.tool_calls ?? []) {
          calls.add(call);
          if (call.function?.name) callbacks.onToolCall?.(call.function.name);
        }
      }
      if (choice?.finish_reason) rawFinish = choice.finish_reason;
      const wireUsage = chunk.usage ?? choice?.usage;
      if (wireUsage) usage = toUsage(wireUsage);
    }
    for (const part of think.flush()) (part.thinking ? emitThinking : emitText)(part.text);
    if (!sawDone && rawFinish === null) {
      throw new ProviderError('provider_stream_broken', `The response stream from ${safeHost(url)} ended before the answer was complete.`);
    }
    const toolCalls = calls.finish();
    return { text, reasoning, toolCalls, finishReason: normaliseFinish(rawFinish, toolCalls.length > 0), rawFinishReason: rawFinish, usage };
  }
}

function normaliseFinish(raw: string | null, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return 'tool_use';
  switch (raw) {
    case 'stop':
    case 'end_turn':
    case 'eos':
      return 'end_turn';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'filtered';
    default:
      return raw === null ? 'end_turn' : 'other';
  }
}

function toUsage(u: WireUsage): Usage {
  const usage: Usage = { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0 };
  const cached = u.prompt_tokens_details?.cached_tokens ?? u.cached_tokens ?? u.prompt_cache_hit_tokens;
  if (cached !== undefined) usage.cachedTokens = cached;
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Tool-call deltas arrive in pieces, keyed by index (or, on some servers, only by id). Servers bend
 * the format: some repeat the whole name in every delta (MiniMax via NVIDIA NIM, some GPT-5 streams),
 * Ollama numbers every parallel call index 0 (ollama#15457), LM Studio sends a fresh id with every
 * fragment. A delta starts a new call at a used index only when it brings both a new id and a name.
 */
class ToolCallAssembler {
  private readonly calls: Array<{ id: string; name: string; arguments: string }> = [];
  /** The call a wire index currently points at (Ollama reuses index 0). */
  private readonly slotOfIndex = new Map<number, number>();
  private lastIndex = -1;

  add(delta: ChunkToolCall): void {
    const name = delta.function?.name ?? '';
    let index: number;
    if (delta.index === undefined) {
      const existing = delta.id ? this.calls.findIndex((c) => c.id === delta.id) : -1;
      index = existing >= 0 ? existing : delta.id ? this.calls.length : Math.max(this.lastIndex, 0);
    } else {
      index = this.slotOfIndex.get(delta.index) ?? delta.index;
      const current = this.calls[index];
      if (current?.id && current.name && delta.id && delta.id !== current.id && name) {
        index = this.calls.length;
        this.slotOfIndex.set(delta.index, index);
      }
    }
    this.lastIndex = index;
    const call = (this.calls[index] ??= { id: '', name: '', arguments: '' });
    if (delta.id) call.id = delta.id;
    if (name && name !== call.name) call.name = name.startsWith(call.name) ? name : call.name + name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }

  finish(): ToolCallRequest[] {
    return this.calls
      .filter((c) => c !== undefined)
      .map((c, i) => ({ id: c.id || `call_${i}_${Math.random().toString(36).slice(2, 10)}`, name: c.name, arguments: c.arguments }));
  }
}

function toWireContent(content: string | ContentPart[]): WireContent {
  if (typeof content === 'string') return content;
  return content.map((part) =>
    part.type === 'text'
      ? { type: 'text' as const, text: part.text }
      : { type: 'image_url' as const, image_url: { url: `data:${part.mimeType};base64,${part.data}` } },
  );
}

/**
 * Chat Completions tool messages carry text only, so images returned by tools are sent in one user
 * message right after the run of tool messages they belong to.
 */
export function toWireMessages(system: string, messages: readonly ModelMessage[]): WireMessage[] {
  const wire: WireMessage[] = [{ role: 'system', content: system }];
  let pendingImages: ContentPart[] = [];
  const flushImages = () => {
    if (!pendingImages.length) return;
    wire.push({ role: 'user', content: toWireContent([{ type: 'text', text: 'Images returned by the tool calls above:' }, ...pendingImages]) });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user':
        wire.push({ role: 'user', content: toWireContent(message.content) });
        break;
      case 'assistant': {
        const item: WireMessage = { role: 'assistant', content: message.content || (message.toolCalls?.length ? null : '') };
        if (message.toolCalls?.length) {
          item.tool_calls = message.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        }
        if (message.reasoning) item.reasoning_content = message.reasoning;
        wire.push(item);
        break;
      }
      case 'tool': {
        const parts = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
        const text = parts
          .filter((p) => p.type === 'text')
          .map((p) => p.text)
          .join('\n');
        pendingImages.push(...parts.filter((p) => p.type === 'image'));
        wire.push({ role: 'tool', tool_call_id: message.toolCallId, content: text });
        break;
      }
    }
  }
  flushImages();
  return wire;
}
