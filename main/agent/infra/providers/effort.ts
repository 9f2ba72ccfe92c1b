import type { Effort } from '#protocol';
import { ProviderError } from './errors';

// How hard a model thinks: one setting, said in each protocol's words. A server that refuses the field is asked again
// without it once, and not asked with it again for that model while Deft runs.

/** Anthropic's thinking budget per effort (tokens); max_tokens is raised to leave this much for the answer besides. */
const THINKING_BUDGET: Record<Effort, number> = { low: 2_048, medium: 8_192, high: 24_576, max: 49_152 };
export const ANSWER_ROOM_TOKENS = 8_192;

/** OpenAI's reasoning_effort values; `max` is the highest OpenAI offers (`xhigh`). */
const OPENAI_EFFORT: Record<Effort, string> = { low: 'low', medium: 'medium', high: 'high', max: 'xhigh' };

/** The fields an OpenAI-compatible request carries for `effort`: OpenRouter speaks the `reasoning` object, the rest `reasoning_effort`. */
export function openAiEffortFields(effort: Effort, baseUrl: string): Record<string, unknown> {
  const value = OPENAI_EFFORT[effort];
  return /(^|\.)openrouter\.ai$/i.test(hostOf(baseUrl)) ? { reasoning: { effort: value } } : { reasoning_effort: value };
}

/** Anthropic's `thinking` for `effort`, and the max_tokens that fits the budget and an answer. */
export function anthropicThinking(effort: Effort, maxTokens: number): { thinking: { type: 'enabled'; budget_tokens: number }; max_tokens: number } {
  const budget = THINKING_BUDGET[effort];
  return { thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: Math.max(maxTokens, budget + ANSWER_ROOM_TOKENS) };
}

/** Endpoints (kind, base URL, model) that refused the effort field: they are not sent it again. */
const refused = new Set<string>();

export const effortKey = (kind: string, baseUrl: string, model: string) => `${kind}\n${baseUrl}\n${model}`;

export function effortRefused(key: string): boolean {
  return refused.has(key);
}

/** Whether `error` is the server refusing the effort field (a 400/422 that names it); remembers the refusal. */
export function noteEffortRefusal(key: string, error: unknown, field: RegExp): boolean {
  if (!(error instanceof ProviderError) || (error.options.status !== 400 && error.options.status !== 422) || !field.test(error.message)) return false;
  refused.add(key);
  return true;
}

/** What the user is told when a server refused the setting. */
export function refusalNote(model: string, field: string): string {
  return `${model} does not accept ${field}: sent without it (and will be from now on for this model).`;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
