import type { Effort, FinishReason, Usage } from '#protocol';
import { type ProviderFetch, nodeFetch } from './node-fetch';
import { anthropicThinking, effortKey, effortRefused, noteEffortRefusal, refusalNote } from './effort';
import { trimBaseUrl } from './base-url';
import { ProviderError, safeHost } from './errors';
import { type StreamTimeouts, getJson, parseChunk, streamSse } from './http';
import { modelInfosFrom } from './model-info';
import type { ChatProvider, ContentPart, ModelInfo, ModelMessage, StepCallbacks, StepRequest, StepResult, ToolCallRequest } from '#contract/model';

export interface AnthropicOptions extends StreamTimeouts {
  /** e.g. https://api.anthropic.com/v1 */
  baseUrl: string;
  model: string;
  apiKey?: string;
  imageInput?: boolean;
  maxOutputTokens?: number;
  /** How hard the model should think: extended thinking with a budget from it (max_tokens raised to fit). */
  effort?: Effort;
  fetch?: ProviderFetch;
}

type Block = (
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: Array<Extract<Block, { type: 'text' | 'image' }>>; is_error?: boolean }
) & { cache_control?: { type: 'ephemeral' } };
interface WireMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

interface StreamEvent {
  type: string;
  index?: number;
  message?: { usage?: WireUsage };
  content_block?: { type: string; id?: string; name?: string; text?: string; thinking?: string };
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; signature?: string; stop_reason?: string | null };
  usage?: WireUsage;
  error?: { type?: string; message?: string };
}
interface WireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's Messages API with streaming (claude-* models). */
export class AnthropicProvider implements ChatProvider {
  readonly kind = 'anthropic';
  readonly model: string;
  readonly capabilities;
  private readonly baseUrl: string;
  private readonly fetchImpl: ProviderFetch;

  constructor(private readonly options: AnthropicOptions) {
    this.model = options.model;
    this.baseUrl = trimBaseUrl(options.baseUrl);
    this.capabilities = { imageInput: options.imageInput ?? true };
    this.fetchImpl = options.fetch ?? nodeFetch;
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_VERSION, accept: 'text/event-stream' };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    return headers;
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    return (await this.listModelInfo(signal)).map((m) => m.id).sort();
  }

  async listModelInfo(signal?: AbortSignal): Promise<ModelInfo[]> {
    return modelInfosFrom(await getJson(this.fetchImpl, `${this.baseUrl}/models?limit=1000`, this.headers(), this.model, signal));
  }

  async step(request: StepRequest, callbacks: StepCallbacks): Promise<StepResult> {
    const url = `${this.baseUrl}/messages`;
    const body: Record<string, unknown> = {
      model: this.model,
      max_tokens: request.maxOutputTokens ?? this.options.maxOutputTokens ?? 8192,
      system: [{ type: 'text', text: request.system, ...CACHE }],
      messages: withCacheBreakpoints(toAnthropicMessages(request.messages)),
      stream: true,
    };
    if (request.tools.length) {
      body.tools = request.tools.map((t, i, all) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters,
        ...(i === all.length - 1 ? CACHE : {}),
      }));
    }
    const plainMaxTokens = body.max_tokens as number;
    const refusedKey = effortKey(this.kind, this.baseUrl, this.model);
    // A connection test (a tiny max_tokens) never thinks.
    const effort = request.maxOutputTokens || effortRefused(refusedKey) ? undefined : this.options.effort;
    const thinking = effort !== undefined;
    if (effort) Object.assign(body, anthropicThinking(effort, plainMaxTokens));
    const send = () =>
      streamSse({ ...this.options, fetch: this.fetchImpl, url, headers: this.headers(), body, model: this.model, signal: request.signal }, (data) =>
        readStream(data, callbacks, url),
      );
    try {
      return await send();
    } catch (error) {
      if (!thinking || !noteEffortRefusal(refusedKey, error, /thinking/i)) throw error;
      delete body.thinking;
      body.max_tokens = plainMaxTokens;
      callbacks.onNote?.(refusalNote(this.model, 'thinking'));
      return send();
    }
  }
}

async function readStream(stream: AsyncIterable<string>, callbacks: StepCallbacks, url: string): Promise<StepResult> {
  let text = '';
  let reasoning = '';
  let signature = '';
  const tools = new Map<number, { id: string; name: string; json: string }>();
  const usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let sawUsage = false;
  let stopReason: string | null = null;
  let stopped = false;
  for await (const data of stream) {
    const event = parseChunk<StreamEvent>(data, url);
    switch (event.type) {
      case 'message_start':
        if (event.message?.usage) {
          addUsage(usage, event.message.usage);
          sawUsage = true;
        }
        break;
      case 'content_block_start':
        if (event.content_block?.type === 'tool_use') {
          tools.set(event.index ?? tools.size, { id: event.content_block.id ?? '', name: event.content_block.name ?? '', json: '' });
          callbacks.onToolCall?.(event.content_block.name ?? '');
        } else if (event.content_block?.type === 'text' && event.content_block.text) {
          text += event.content_block.text;
          callbacks.onText(event.content_block.text);
        }
        break;
      case 'content_block_delta': {
        const delta = event.delta ?? {};
        if (delta.type === 'text_delta' && delta.text) {
          text += delta.text;
          callbacks.onText(delta.text);
        } else if (delta.type === 'thinking_delta' && delta.thinking) {
          reasoning += delta.thinking;
          callbacks.onThinking(delta.thinking);
        } else if (delta.type === 'signature_delta' && delta.signature) {
          signature += delta.signature;
        } else if (delta.type === 'input_json_delta' && delta.partial_json !== undefined) {
          const tool = tools.get(event.index ?? -1);
          if (tool) tool.json += delta.partial_json;
        }
        break;
      }
      case 'message_delta':
        if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
        if (event.usage) {
          usage.outputTokens = event.usage.output_tokens ?? usage.outputTokens;
          sawUsage = true;
        }
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error': {
        const kind = event.error?.type ?? 'error';
        const message = `${safeHost(url)} reported ${kind} mid-stream: ${event.error?.message ?? 'no details'}`;
        if (kind === 'rate_limit_error') throw new ProviderError('provider_rate_limit', message);
        const transient = kind === 'overloaded_error' || kind === 'api_error' || kind === 'timeout_error';
        throw new ProviderError(transient ? 'provider_server' : 'provider_bad_request', message, { retryable: transient });
      }
      default:
        break; // ping and future event types
    }
  }
  if (!stopped && stopReason === null) {
    throw new ProviderError('provider_stream_broken', `The response stream from ${safeHost(url)} ended before the answer was complete.`);
  }
  const toolCalls: ToolCallRequest[] = [...tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => ({ id: t.id, name: t.name, arguments: t.json || '{}' }));
  const result: StepResult = {
    text,
    reasoning,
    toolCalls,
    finishReason: normaliseStop(stopReason, toolCalls.length > 0),
    rawFinishReason: stopReason,
    usage: sawUsage ? usage : null,
  };
  if (signature) result.reasoningSignature = signature;
  return result;
}

/** Input tokens count what was read from the cache and written to it too (Anthropic reports the three apart). */
function addUsage(usage: Usage, wire: WireUsage): void {
  const read = wire.cache_read_input_tokens ?? 0;
  const written = wire.cache_creation_input_tokens ?? 0;
  usage.inputTokens += (wire.input_tokens ?? 0) + read + written;
  usage.outputTokens += wire.output_tokens ?? 0;
  if (wire.cache_read_input_tokens !== undefined) usage.cachedTokens = read;
  if (wire.cache_creation_input_tokens !== undefined) usage.cacheWriteTokens = written;
}

function normaliseStop(raw: string | null, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls || raw === 'tool_use') return 'tool_use';
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
    case null:
      return 'end_turn';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'filtered';
    default:
      return 'other';
  }
}

/** Text blocks must hold more than whitespace (the API refuses them otherwise). */
function mediaBlocks(content: string | ContentPart[]): Array<Extract<Block, { type: 'text' | 'image' }>> {
  const parts: ContentPart[] = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return parts
    .filter((p) => p.type === 'image' || p.text.trim())
    .map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image', source: { type: 'base64', media_type: p.mimeType, data: p.data } }));
}

/** The API refuses an error result that is empty or carries anything but text. */
function toolResultBlocks(content: string | ContentPart[], isError: boolean): Array<Extract<Block, { type: 'text' | 'image' }>> {
  const blocks = mediaBlocks(content).filter((b) => !isError || b.type === 'text');
  return blocks.length ? blocks : [{ type: 'text', text: isError ? 'The tool failed without output.' : '(no output)' }];
}

function parseInput(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

const CACHE = { cache_control: { type: 'ephemeral' } } as const;

/**
 * Prompt caching: besides the system prompt and the tools, a breakpoint on the last message (this step
 * writes the cache up to it) and on the message the previous request ended with (the user message before
 * the latest answer), so each step reads what the previous one wrote. Four breakpoints, the API's limit.
 */
export function withCacheBreakpoints(messages: WireMessage[]): WireMessage[] {
  const marked = (message: WireMessage | undefined): void => {
    const last = message?.content.at(-1);
    if (message && last) message.content = [...message.content.slice(0, -1), { ...last, ...CACHE }];
  };
  marked(messages.at(-1));
  if (messages.length >= 3 && messages.at(-3)?.role === 'user') marked(messages.at(-3));
  return messages;
}

/**
 * The core's history as Messages: tool results travel in user messages, consecutive messages of one
 * role merge (the API wants alternation), empty text blocks are dropped, and thinking is sent back
 * only with its signature.
 */
export function toAnthropicMessages(messages: readonly ModelMessage[]): WireMessage[] {
  const out: WireMessage[] = [];
  const push = (role: WireMessage['role'], blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last?.role === role) {
      // Tool results must come first in a user message.
      last.content =
        role === 'user'
          ? [
              ...last.content.filter((b) => b.type === 'tool_result'),
              ...blocks.filter((b) => b.type === 'tool_result'),
              ...last.content.filter((b) => b.type !== 'tool_result'),
              ...blocks.filter((b) => b.type !== 'tool_result'),
            ]
          : [...last.content, ...blocks];
    } else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === 'user') push('user', mediaBlocks(message.content));
    else if (message.role === 'tool') {
      push('user', [
        {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: toolResultBlocks(message.content, message.isError === true),
          ...(message.isError ? { is_error: true } : {}),
        },
      ]);
    } else {
      const blocks: Block[] = [];
      if (message.reasoning && message.reasoningSignature)
        blocks.push({ type: 'thinking', thinking: message.reasoning, signature: message.reasoningSignature });
      if (message.content.trim()) blocks.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseInput(call.arguments) });
      push('assistant', blocks);
    }
  }
  return out;
}
