import type { RootContent } from 'mdast';
import { describe, expect, it } from 'vitest';
import { fakeIdle } from '../../testing/idle';
import { renderMarkdownNodes } from './markdown-render';
import { WARMUP_LANGUAGES, warmMarkdownWhenIdle, warmupSteps } from './markdown-warmup';

function countingSteps(total: number) {
  let ran = 0;
  const steps = (function* () {
    for (let i = 0; i < total; i++) {
      ran++;
      yield;
    }
  })();
  return { steps, ran: () => ran };
}

describe('warming the Markdown path when idle', () => {
  it('runs nothing until the window is idle, then steps while the idle period has time left, and goes on in the next', () => {
    const idle = fakeIdle();
    const { steps, ran } = countingSteps(10);
    warmMarkdownWhenIdle(idle, steps);
    expect(ran()).toBe(0);
    expect(idle.waiting.size).toBe(1);
    // 20 ms, then 10 ms left: two more steps; 3 ms left is too little for another.
    idle.period([20, 10, 3]);
    expect(ran()).toBe(3);
    expect(idle.waiting.size).toBe(1);
    // A period already nearly over still takes one step: the warm-up always moves on.
    idle.period([0]);
    expect(ran()).toBe(4);
  });

  it('stops asking for idle time once every step ran', () => {
    const idle = fakeIdle();
    const { steps, ran } = countingSteps(2);
    warmMarkdownWhenIdle(idle, steps);
    idle.period([50]);
    expect(ran()).toBe(2);
    expect(idle.waiting.size).toBe(0);
  });

  it('can be stopped', () => {
    const idle = fakeIdle();
    const { steps, ran } = countingSteps(10);
    const stop = warmMarkdownWhenIdle(idle, steps);
    idle.period([20, 3]);
    stop();
    expect(idle.waiting.size).toBe(0);
    expect(ran()).toBe(2);
  });

  it('streams an answer through the split and renders every block, code of each language highlighted once finished', () => {
    const calls: { nodes: RootContent[]; highlight: boolean }[] = [];
    let steps = 0;
    for (const _ of warmupSteps((nodes, options) => {
      calls.push({ nodes, highlight: options.highlight });
      return renderMarkdownNodes(nodes, options);
    }))
      steps++;
    // Small steps, many of them: that is what gets the code optimised, not only compiled.
    expect(steps).toBeGreaterThan(100);
    const highlighted = new Set(calls.filter((c) => c.highlight).flatMap((c) => c.nodes.flatMap((n) => (n.type === 'code' && n.lang ? [n.lang] : []))));
    expect([...highlighted].sort()).toEqual([...WARMUP_LANGUAGES].sort());
    const kinds = new Set(calls.flatMap((c) => c.nodes.map((n) => n.type)));
    for (const kind of ['heading', 'paragraph', 'list', 'table', 'blockquote', 'code']) expect(kinds).toContain(kind);
    // An open fence is rendered, but not highlighted, while it streams (as in an answer).
    expect(calls.some((c) => !c.highlight && c.nodes.some((n) => n.type === 'code'))).toBe(true);
  });
});
