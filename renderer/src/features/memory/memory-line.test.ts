import { describe, expect, it } from 'vitest';
import { memoryLine } from './memory-line';

describe('memoryLine', () => {
  it('takes one # at the start of a one-line message, not a heading level two or a longer message', () => {
    expect(memoryLine('# Use pnpm, not npm')).toBe('Use pnpm, not npm');
    expect(memoryLine('#always run lint')).toBe('always run lint');
    expect(memoryLine('## Heading')).toBeNull();
    expect(memoryLine('#')).toBeNull();
    expect(memoryLine('# title\nand a body')).toBeNull();
    expect(memoryLine('say # here')).toBeNull();
  });
});
