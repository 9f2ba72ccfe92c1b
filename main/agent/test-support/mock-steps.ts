import type { MockChunk, MockReply } from '../../../e2e/fixtures/mock-model-server';
import type { createHarness } from './harness';

/** A tool call chunk with JSON arguments. */
export function callChunk(name: string, args: unknown, id?: string): MockChunk {
  return { toolCall: { ...(id ? { id } : {}), name, args: JSON.stringify(args) } };
}

/** A model step that issues these tool calls. */
export function toolStep(...calls: MockChunk[]): MockReply {
  return { chunks: [...calls, { finish: 'tool_calls' }] };
}

/** A final answer, optionally reporting input tokens. */
export function textReply(text: string, tokens = 0): MockReply {
  return { chunks: [{ text }, { finish: 'stop' }, ...(tokens ? [{ usage: { prompt_tokens: tokens, completion_tokens: 0 } }] : [])] };
}

/** The tool messages the model received in its latest request. */
export function toolMessages(h: Awaited<ReturnType<typeof createHarness>>): string[] {
  return h.server.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}
