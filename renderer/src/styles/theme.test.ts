import { describe, expect, it } from 'vitest';
import css from './theme.css?raw';

// WCAG contrast of the two palettes in theme.css: text 4.5:1 on every surface it is drawn on, control
// borders 3:1. (The e2e axe check measures the rendered pages as well; this catches a palette edit at once.)

function palette(selector: string): Record<string, string> {
  const start = css.indexOf(selector);
  const block = css.slice(css.indexOf('{', start) + 1, css.indexOf('}', start));
  return Object.fromEntries([...block.matchAll(/--([\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

type Rgba = [number, number, number, number];
function parse(color: string): Rgba {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (hex) return [0, 2, 4].map((i) => parseInt(hex[1]!.slice(i, i + 2), 16)).concat(1) as Rgba;
  const rgba = /^rgba\(([\d.]+),\s*([\d.]+),\s*([\d.]+),\s*([\d.]+)\)$/.exec(color);
  if (rgba) return rgba.slice(1).map(Number) as Rgba;
  throw new Error(`not a colour: ${color}`);
}
/** A translucent colour over an opaque one. */
const over = (top: Rgba, base: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + base[i]! * (1 - top[3])).concat(1) as Rgba;
const luminance = ([r, g, b]: Rgba) =>
  [r, g, b]
    .map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4))
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
function contrast(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const surfaces = ['bg', 'panel', 'panel-2', 'panel-3'];
const texts = ['text', 'text-2', 'muted', 'accent', 'ok', 'warn', 'bad', 'diff-gutter'];
/** Text drawn on a tinted surface (badges, banners, diff lines), each tint laid over the surfaces it appears on. */
const tinted: Array<[text: string, tint: string]> = [
  ['accent', 'accent-soft'],
  ['text', 'accent-soft'],
  ['ok', 'ok-soft'],
  ['ok-text', 'diff-add-bg'],
  ['text-2', 'diff-add-bg'],
  ['text-2', 'diff-del-bg'],
  ['text', 'diff-add-word'],
  ['text', 'diff-del-word'],
  ['warn', 'warn-soft'],
  ['warn-text', 'warn-soft'],
  ['bad', 'bad-soft'],
  ['bad-text', 'bad-soft'],
];
const syntax = ['syn-comment', 'syn-keyword', 'syn-string', 'syn-number', 'syn-title', 'syn-attr', 'syn-builtin', 'syn-meta', 'syn-deletion'];

describe.each([
  ['dark', ":root[data-theme='dark']"],
  ['light', ":root[data-theme='light']"],
])('the %s theme', (_name, selector) => {
  const p = palette(selector);
  const color = (name: string) =>
    parse(
      p[name] ??
        (() => {
          throw new Error(`--${name} is not set`);
        })(),
    );

  it('defines every variable the other theme defines', () => {
    const other = palette(selector.includes('dark') ? ":root[data-theme='light']" : ":root[data-theme='dark']");
    expect(Object.keys(p).sort()).toEqual(Object.keys(other).sort());
  });

  it.each(texts.flatMap((text) => surfaces.map((surface) => [text, surface] as const)))('--%s on --%s reads at 4.5:1', (text, surface) => {
    expect(contrast(color(text), color(surface))).toBeGreaterThanOrEqual(4.5);
  });

  it.each(tinted.flatMap(([text, tint]) => ['bg', 'panel'].map((surface) => [text, tint, surface] as const)))(
    '--%s on --%s over --%s reads at 4.5:1',
    (text, tint, surface) => {
      expect(contrast(color(text), over(color(tint), color(surface)))).toBeGreaterThanOrEqual(4.5);
    },
  );

  it.each(syntax)('highlighted code --%s on --code-bg reads at 4.5:1', (name) => {
    expect(contrast(color(name), color('code-bg'))).toBeGreaterThanOrEqual(4.5);
  });

  it('primary buttons: --on-accent on --accent-strong reads at 4.5:1', () => {
    expect(contrast(color('on-accent'), color('accent-strong'))).toBeGreaterThanOrEqual(4.5);
  });

  it.each(surfaces)('control borders stand out from --%s at 3:1', (surface) => {
    expect(contrast(color('control-border'), color(surface))).toBeGreaterThanOrEqual(3);
  });
});
