import type { ModelPrice, PriceTable } from '../schemas/preferences';

// zod-free: the renderer prices usage with this, the core serves the built-in table.

/**
 * Public list prices in US dollars per million tokens for common hosted models (standard tier, short
 * context). A price that changes is one line here, or an edit in Settings; a model not listed shows no cost.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, output: 75 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, output: 15 },
  'claude-haiku-4': { input: 1, cachedInput: 0.1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, output: 4 },
  'kimi-k2': { input: 0.6, cachedInput: 0.15, output: 2.5 },
  'deepseek-chat': { input: 0.28, cachedInput: 0.028, output: 0.42 },
  'deepseek-reasoner': { input: 0.28, cachedInput: 0.028, output: 0.42 },
};

/**
 * The price of a model: the table's entry whose name is the longest prefix of the model's (case
 * ignored, and without a router's `vendor/` prefix), so `claude-sonnet-4-5-20250929` and
 * `anthropic/claude-sonnet-4.5` find `claude-sonnet-4`. Null when the table does not know it.
 */
export function priceFor(model: string, table: PriceTable): ModelPrice | null {
  const name = model
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/(\d)\.(\d)/g, '$1-$2');
  let best: { key: string; price: ModelPrice } | null = null;
  for (const [key, price] of Object.entries(table)) {
    const k = key.toLowerCase().replace(/(\d)\.(\d)/g, '$1-$2');
    if ((name === k || name.startsWith(`${k}-`) || name.startsWith(`${k}:`)) && (!best || k.length > best.key.length)) best = { key: k, price };
  }
  return best?.price ?? null;
}

/** Tokens one model call used, as priced. */
export interface PricedUsage {
  inputTokens: number;
  outputTokens: number;
  /** Part of `inputTokens` read from the provider's cache. */
  cachedTokens?: number;
}

/** What a call cost in US dollars at `price`. */
export function costOf(usage: PricedUsage, price: ModelPrice): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
  const cachedPrice = price.cachedInput ?? price.input;
  return ((usage.inputTokens - cached) * price.input + cached * cachedPrice + usage.outputTokens * price.output) / 1_000_000;
}

/** What a session's calls cost: `usd` for the priced models, and the models used whose price is unknown (not in `usd`). */
export interface SessionCost {
  usd: number;
  unpriced: string[];
}

/**
 * What the session's model calls cost at the table's prices, or null when no model used is priced (then
 * nothing is shown). Calls recorded without a model name are priced as `fallbackModel` (the one configured).
 * The window's cost badge and `deft run --output-format json` both price with this.
 */
export function sessionCost(byModel: Readonly<Record<string, PricedUsage>>, prices: PriceTable, fallbackModel: string | undefined): SessionCost | null {
  let usd = 0;
  let priced = false;
  const unpriced: string[] = [];
  for (const [name, usage] of Object.entries(byModel)) {
    const model = name || fallbackModel;
    if (!model || usage.inputTokens + usage.outputTokens === 0) continue;
    const price = priceFor(model, prices);
    if (!price) {
      if (!unpriced.includes(model)) unpriced.push(model);
      continue;
    }
    priced = true;
    usd += costOf(usage, price);
  }
  return priced ? { usd, unpriced } : null;
}

/** "$0.0042", "$0.31", "$12.40". */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}
