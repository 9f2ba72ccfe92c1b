import type { ContentPart, ModelMessage } from '#contract/model';
import { estimateTokens } from './tokens';

/** The user's recent prompts kept verbatim after a compaction, in tokens (estimated). */
export const RECENT_USER_TOKENS = 20_000;
/** Of that budget, what is kept back for the head of the oldest prompt that does not fit whole. */
export const OLDEST_HEAD_TOKENS = 2_000;

function textOf(content: string | ContentPart[]): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? p.text : '[image]')).join('\n');
}

function headOf(text: string, tokens: number): string {
  const bytes = Buffer.from(text, 'utf8').subarray(0, Math.max(0, tokens * 4 - 120));
  const head = bytes.toString('utf8').replace(/\uFFFD+$/, '');
  return `${head}\n[… the rest of this message (${(text.length - head.length).toLocaleString('en-US')} characters) was cut when the conversation was compacted]`;
}

/**
 * The user's most recent prompts (turn prompts only: not notifications or reminders), oldest first:
 * whole while they fit in `budget - OLDEST_HEAD_TOKENS`, newest first; then the head of the next older
 * one fills what is left. Prompts whose text is in `skip` (re-attached anyway) are left out.
 */
export function recentUserMessages(context: readonly ModelMessage[], skip: ReadonlySet<string>, budget = RECENT_USER_TOKENS): ModelMessage[] {
  const kept: ModelMessage[] = [];
  let used = 0;
  for (let i = context.length - 1; i >= 0 && used < budget; i--) {
    const message = context[i]!;
    if (message.role !== 'user' || !message.turnId) continue;
    const text = textOf(message.content);
    if (!text.trim() || skip.has(text)) continue;
    const tokens = estimateTokens(text);
    if (used + tokens <= budget - OLDEST_HEAD_TOKENS) {
      kept.push({ role: 'user', content: text, turnId: message.turnId });
      used += tokens;
      continue;
    }
    kept.push({ role: 'user', content: headOf(text, budget - used), turnId: message.turnId });
    break;
  }
  return kept.reverse();
}

/** The handoff note as the model reads it after a compaction. */
export function handoffMessage(note: string): ModelMessage {
  return {
    role: 'user',
    content: [
      '<system-reminder>',
      "This conversation was compacted to free context. The user's most recent messages are kept above, verbatim. Below is the handoff note I (the assistant) wrote for myself just before the compaction: continue the work from it. Files may have changed since; read a file again before relying on its content.",
      '</system-reminder>',
      '<handoff-note>',
      note,
      '</handoff-note>',
    ].join('\n'),
  };
}

/** The history that replaces the context: recent prompts, the handoff note, then what capabilities re-attach. */
export function compactedHistory(context: readonly ModelMessage[], note: string, reattach: readonly string[]): ModelMessage[] {
  const recent = recentUserMessages(context, new Set(reattach));
  return [...recent, handoffMessage(note), ...reattach.map((content): ModelMessage => ({ role: 'user', content }))];
}
