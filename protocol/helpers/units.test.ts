import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, formatTokens } from './units';

describe('units', () => {
  it('writes sizes one way: bytes, then binary units with one decimal below 100 unless whole', () => {
    expect([0, 512, 1023].map(formatBytes)).toEqual(['0 B', '512 B', '1023 B']);
    expect([1024, 1536, 32 * 1024, 282.4 * 1024, 16 * 1024 * 1024, 3.75 * 1024 * 1024].map(formatBytes)).toEqual([
      '1 KiB',
      '1.5 KiB',
      '32 KiB',
      '282 KiB',
      '16 MiB',
      '3.8 MiB',
    ]);
    expect([2 * 1024 ** 3, 1.25 * 1024 ** 4, 3000 * 1024 ** 4].map(formatBytes)).toEqual(['2 GiB', '1.3 TiB', '3000 TiB']);
  });

  it('writes durations from milliseconds to hours', () => {
    expect([850, 4_200, 42_000, 185_000, 120_000, 7_800_000, 10_800_000].map(formatDuration)).toEqual([
      '850 ms',
      '4.2 s',
      '42 s',
      '3 min 5 s',
      '2 min',
      '2 h 10 min',
      '3 h',
    ]);
  });

  it('formats token counts briefly', () => {
    expect([950, 1_000, 1_234, 9_960, 12_400, 128_000].map(formatTokens)).toEqual(['950', '1k', '1.2k', '10k', '12k', '128k']);
  });
});
