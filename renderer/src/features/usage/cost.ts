import type { PriceTable } from '#protocol';
import { type PricedUsage, costOf, priceFor } from '#protocol/helpers/prices';

export interface SessionCost {
  usd: number;
  /** Models used whose price is unknown (their tokens are not in `usd`). */
  unpriced: string[];
}

/**
 * What the session's model calls cost at the table's prices, or null when no model used is priced (then
 * nothing is shown). Calls recorded without a model name are priced as `fallbackModel` (the one configured).
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
