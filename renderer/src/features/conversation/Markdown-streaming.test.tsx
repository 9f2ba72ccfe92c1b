import { act, render } from '@testing-library/react';
import type { RootContent } from 'mdast';
import { describe, expect, it, vi } from 'vitest';
import { deltas, longAnswer } from '../../../../test-support/long-answer';
import { Markdown, SKIP_BEHIND } from './Markdown';
import type * as MarkdownRender from './markdown-render';

// Every block rendered, by the syntax tree it was rendered from: a finished block keeps its tree (the split
// keeps it), so rendering it again would render the same tree again.
const rendered = vi.hoisted(() => new Map<unknown, number>());
vi.mock('./markdown-render', async (original) => {
  const real = await original<typeof MarkdownRender>();
  return {
    renderMarkdownNodes: (nodes: RootContent[], options: Parameters<typeof real.renderMarkdownNodes>[1]) => {
      rendered.set(nodes, (rendered.get(nodes) ?? 0) + 1);
      return real.renderMarkdownNodes(nodes, options);
    },
  };
});

describe('a streamed answer', () => {
  it('renders each finished block once: a frame renders only the growing last block', () => {
    const answer = longAnswer(6_000);
    // About a frame's worth of deltas at a time (16 deltas of 4 characters).
    const frames = deltas(answer, 64);
    let text = '';
    const view = render(<Markdown text="" />);
    let renders = 0;
    const full = new Map<Element, Element | null>();
    for (const delta of frames) {
      text += delta;
      const before = [...rendered.values()].reduce((a, b) => a + b, 0);
      act(() => view.rerender(<Markdown text={text} />));
      // A full group of finished blocks keeps its DOM: the same element, with the same blocks in it.
      for (const [chunk, first] of full) expect(chunk.isConnected && chunk.firstElementChild === first).toBe(true);
      // Every group but the last is full (whether or not it is yet one the browser may skip).
      for (const chunk of [...view.container.querySelectorAll('.markdown > .markdown-chunk')].slice(0, -1))
        if (!full.has(chunk)) full.set(chunk, chunk.firstElementChild);
      const now = [...rendered.values()].reduce((a, b) => a + b, 0);
      // The last block, and blocks that came whole in this delta: a few, never the answer so far.
      expect(now - before).toBeLessThanOrEqual(4);
      renders += now - before;
    }
    const blocks = view.container.querySelectorAll('.markdown > .markdown-chunk > *, .markdown > :not(.markdown-chunk)').length;
    expect(blocks).toBeGreaterThan(30);
    // Grouped: a frame walks a few groups and the growing block, not every block.
    expect(full.size).toBeGreaterThan(5);
    expect(view.container.querySelector('.markdown')!.children.length).toBeLessThan(blocks / 3);
    // Each block is rendered once as it is finished, plus the growing tail once a frame.
    expect(renders).toBeLessThanOrEqual(frames.length + blocks);
    // No tree (a finished block's) was rendered more than once... except the growing tail's, which is new each frame.
    expect(Math.max(...rendered.values())).toBe(1);
    // And it reads as the whole answer rendered at once.
    const whole = render(<Markdown text={answer} />);
    expect(view.container.innerHTML).toBe(whole.container.innerHTML);
  });

  it('makes a full group one the browser may skip only well behind the end: one made so in view is styled and laid out twice in a frame', () => {
    const answer = longAnswer(12_000);
    let text = '';
    const view = render(<Markdown text="" />);
    const skippable = new Set<Element>();
    for (const delta of deltas(answer, 256)) {
      text += delta;
      act(() => view.rerender(<Markdown text={text} />));
      const chunks = [...view.container.querySelectorAll('.markdown > .markdown-chunk')];
      // Every full group but the first is contained from the frame it fills (so becoming skippable changes none of its layout)...
      for (const chunk of chunks.slice(1, -1)) expect(chunk.hasAttribute('data-done')).toBe(true);
      // ...and skippable only once SKIP_BEHIND characters came after it: never the groups just filled, at the end.
      for (const chunk of chunks) if (chunk.hasAttribute('data-full')) skippable.add(chunk);
      const nearEnd = chunks.filter((chunk) => text.length - text.lastIndexOf(chunk.lastElementChild!.textContent.slice(0, 20)) < SKIP_BEHIND / 2);
      for (const chunk of nearEnd) expect(chunk.hasAttribute('data-full')).toBe(false);
      expect(chunks.at(-2)?.hasAttribute('data-full') ?? false).toBe(false);
    }
    expect(skippable.size).toBeGreaterThan(5);
  });
});
