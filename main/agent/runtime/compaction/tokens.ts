import type { Usage } from '#protocol';
import type { ContentPart, ModelMessage, ToolSchema } from '#contract/model';
import { instructionChars } from '#infra/instructions/render';

/** What an image costs, roughly, in most providers' accounting. */
const IMAGE_TOKENS = 1_600;
const MESSAGE_OVERHEAD = 4;

/** A rough token count: UTF-8 bytes / 4 (about right for English and code; generous for CJK). */
export function estimateTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}

function contentTokens(content: string | ContentPart[]): number {
  if (typeof content === 'string') return estimateTokens(content);
  return content.reduce((sum, part) => sum + (part.type === 'text' ? estimateTokens(part.text) : IMAGE_TOKENS), 0);
}

export function estimateMessages(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const m of messages) {
    total += MESSAGE_OVERHEAD + contentTokens(m.content);
    if (m.role === 'assistant') {
      if (m.reasoning) total += estimateTokens(m.reasoning);
      for (const call of m.toolCalls ?? []) total += estimateTokens(call.name) + estimateTokens(call.arguments);
    }
  }
  return total;
}

/**
 * How full a session's context is. The provider's count from the latest step is the truth (its input
 * plus the answer it wrote); messages added since are estimated. Without a count for this very context
 * (a new session, after a restart, a compaction or an undo) the whole context is estimated.
 */
export class ContextMeter {
  private last: { tokens: number; context: readonly ModelMessage[]; length: number } | null = null;

  /** A step's usage, reported right after its answer joined `context`. */
  note(usage: Usage, context: readonly ModelMessage[]): void {
    this.last = { tokens: usage.inputTokens + usage.outputTokens, context, length: context.length };
  }

  reset(): void {
    this.last = null;
  }

  /** The provider's count for this very context plus estimates of what came after it, or null when there is none. */
  measured(context: readonly ModelMessage[]): number | null {
    const last = this.last;
    if (last && last.context === context && context.length >= last.length) return last.tokens + estimateMessages(context.slice(last.length));
    return null;
  }

  used(context: readonly ModelMessage[], system: string): number {
    return this.measured(context) ?? estimateTokens(system) + estimateMessages(context);
  }
}

/** What fills the context, by source (see protocol ContextBreakdown). */
export interface ContextSources {
  system: number;
  tools: number;
  conversation: number;
  toolResults: number;
  /** The instruction files: their part of the system prompt and the subfolders' files announced since. */
  instructions: number;
}

/**
 * The context by source: each part estimated, then scaled so the parts add up to `total` (the
 * provider's count), since the estimate and the provider's tokenizer disagree by a steady factor.
 */
export function contextBreakdown(system: string, tools: readonly ToolSchema[], context: readonly ModelMessage[], total: number): ContextSources {
  const said = context.filter((m) => m.role !== 'tool');
  const inSystem = Math.ceil(instructionChars(system) / 4);
  const inConversation = Math.ceil(said.reduce((sum, m) => sum + (typeof m.content === 'string' ? instructionChars(m.content) : 0), 0) / 4);
  const conversation = estimateMessages(said);
  const toolResults = estimateMessages(context.filter((m) => m.role === 'tool'));
  const raw: ContextSources = {
    system: Math.max(0, estimateTokens(system) - inSystem),
    tools: tools.length ? estimateTokens(JSON.stringify(tools)) : 0,
    conversation: Math.max(0, conversation - inConversation),
    toolResults,
    instructions: inSystem + inConversation,
  };
  const sum = raw.system + raw.tools + raw.conversation + raw.toolResults + raw.instructions;
  if (sum === 0) return raw;
  const scaled = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Math.round((v * total) / sum)])) as unknown as ContextSources;
  // Rounding can leave the parts a token or two off the total: the largest part absorbs it.
  const keys = Object.keys(scaled) as Array<keyof ContextSources>;
  const largest = keys.reduce((a, b) => (scaled[b] > scaled[a] ? b : a));
  scaled[largest] = Math.max(0, scaled[largest] + total - keys.reduce((s, k) => s + scaled[k], 0));
  return scaled;
}
