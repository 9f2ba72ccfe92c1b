import type { MockChunk, MockReply } from './mock-model-server';
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
  return h.server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
}

/** Fact reminders (runtime/facts.ts) start with this; the handoff note after a compaction does too, but carries a note. */
export function isReminder(message: { role: string; content: unknown }): boolean {
  return (
    message.role === 'user' &&
    typeof message.content === 'string' &&
    message.content.startsWith('<system-reminder>\n') &&
    !message.content.includes('<handoff-note>')
  );
}

/** A request's messages without the fact reminders, for tests about the rest of the conversation. */
export function withoutReminders<M extends { role: string; content: unknown }>(messages: readonly M[]): M[] {
  return messages.filter((m) => !isReminder(m));
}

/** The fact reminders a request carries, in order. */
export function reminders(messages: ReadonlyArray<{ role: string; content: unknown }>): string[] {
  return messages.filter(isReminder).map((m) => String(m.content));
}
