import { describe, expect, it } from 'vitest';
import { formatNextFire } from './format';

describe('tasks panel formatting', () => {
  it('says when a scheduled prompt fires next', () => {
    const now = new Date('2026-03-02T08:00:00').getTime();
    expect(formatNextFire(now + 4 * 60_000, now)).toMatch(/^in 4 min \(/);
    expect(formatNextFire(now + 3 * 3_600_000, now)).toMatch(/^in 3 h \(/);
    expect(formatNextFire(now + 10 * 86_400_000, now)).toMatch(/^in 10 days \(/);
    expect(formatNextFire(now - 1, now)).toBe('due now (waiting for the session to be idle)');
    expect(formatNextFire(null, now)).toBe('never again');
  });
});
