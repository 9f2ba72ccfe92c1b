import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, costOf, formatUsd, priceFor } from './prices';
import { preferenceSchemas } from '../schemas/preferences';

describe('model prices', () => {
  it('find a model by the longest listed name it starts with, ignoring case, a router prefix and dotted versions', () => {
    expect(priceFor('gpt-4.1', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4.1']);
    expect(priceFor('gpt-4.1-mini-2025-04-14', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(priceFor('claude-sonnet-4-5-20250929', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['claude-sonnet-4']);
    expect(priceFor('anthropic/Claude-Sonnet-4.5', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['claude-sonnet-4']);
    expect(priceFor('kimi-k2-0905-preview', DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['kimi-k2']);
    // Not a prefix at a word boundary, or not listed: no price, so no cost is shown.
    expect(priceFor('gpt-4.10', DEFAULT_PRICES)).toBeNull();
    expect(priceFor('qwen3-coder', DEFAULT_PRICES)).toBeNull();
  });

  it('price cached input at the cached rate and the rest at full price', () => {
    const price = { input: 2, cachedInput: 0.5, output: 8 };
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0 }, price)).toBe(2);
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 600_000 }, price)).toBeCloseTo(0.8 + 0.3 + 4);
    expect(costOf({ inputTokens: 100, outputTokens: 0, cachedTokens: 100 }, { input: 2, output: 8 })).toBeCloseTo(0.0002);
  });

  it('format dollars readably at every size', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.00421)).toBe('$0.0042');
    expect(formatUsd(12.4)).toBe('$12.40');
  });

  it('the built-in table is valid against the schema the Settings page saves through', () => {
    expect(preferenceSchemas().PriceTable.safeParse(DEFAULT_PRICES).success).toBe(true);
    expect(preferenceSchemas().PriceTable.safeParse({ m: { input: -1, output: 1 } }).success).toBe(false);
  });
});
