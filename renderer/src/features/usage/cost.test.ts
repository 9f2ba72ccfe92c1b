import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '#protocol/helpers/prices';
import { sessionCost } from './cost';

describe('session cost', () => {
  it('prices each model at its own rate and names the ones it cannot price', () => {
    const cost = sessionCost(
      { 'gpt-4.1': { inputTokens: 1_000_000, outputTokens: 100_000, cachedTokens: 500_000 }, 'qwen3-coder': { inputTokens: 5000, outputTokens: 10 } },
      DEFAULT_PRICES,
      'gpt-4.1',
    );
    expect(cost!.usd).toBeCloseTo(0.5 * 2 + 0.5 * 0.5 + 0.1 * 8);
    expect(cost!.unpriced).toEqual(['qwen3-coder']);
  });

  it('is nothing at all when no model used has a price', () => {
    expect(sessionCost({ 'qwen3-coder': { inputTokens: 5000, outputTokens: 10 } }, DEFAULT_PRICES, 'qwen3-coder')).toBeNull();
    expect(sessionCost({}, DEFAULT_PRICES, 'gpt-4.1')).toBeNull();
  });

  it('prices calls recorded without a model as the configured one', () => {
    expect(sessionCost({ '': { inputTokens: 1_000_000, outputTokens: 0 } }, DEFAULT_PRICES, 'gpt-4.1')!.usd).toBeCloseTo(2);
  });
});
