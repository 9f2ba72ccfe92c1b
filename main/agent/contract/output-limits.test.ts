import { describe, expect, it } from 'vitest';
import { TRUNCATION_MARKER, capText } from './output-limits';

describe('capText', () => {
  it('leaves short text alone', () => {
    expect(capText('a\nb\n')).toEqual({ text: 'a\nb\n', truncated: false, longLines: 0 });
  });
  it('cuts each long line at 2,000 characters, keeping the line break', () => {
    const result = capText(`${'x'.repeat(2500)}\nshort`);
    expect(result.text).toBe(`${'x'.repeat(2000)}${TRUNCATION_MARKER}\nshort`);
    expect(result.longLines).toBe(1);
    expect(result.truncated).toBe(true);
  });
  it('stops at 50,000 characters with one marker', () => {
    const line = `${'y'.repeat(99)}\n`;
    const result = capText(line.repeat(1000));
    expect(result.text.length).toBe(50_000 + TRUNCATION_MARKER.length);
    expect(result.text.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(result.text.split(TRUNCATION_MARKER).length).toBe(2);
  });
  it('never cuts a surrogate pair in half, at the line cap or the total cap', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    const line = capText(`a${'😀'.repeat(1500)}\nb`);
    expect(line.text).toBe(`a${'😀'.repeat(999)}${TRUNCATION_MARKER}\nb`);
    const total = capText(`a${'😀'.repeat(30_000)}`, { maxLineLength: null });
    expect(total.text).toBe(`a${'😀'.repeat(24_999)}${TRUNCATION_MARKER}`);
    expect(lone.test(line.text) || lone.test(total.text)).toBe(false);
  });
  it('can disable the line cap', () => {
    expect(capText('z'.repeat(3000), { maxLineLength: null }).truncated).toBe(false);
  });
});
