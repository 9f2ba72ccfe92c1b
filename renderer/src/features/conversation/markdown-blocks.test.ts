import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { describe, expect, it, vi } from 'vitest';
import { deltas, longAnswer } from '#test-support/long-answer';
import { type MarkdownSplit, splitMarkdown } from './markdown-blocks';
import { Markdown, markdownComponents } from './Markdown';

// Every text handed to a Markdown parser, to see what is parsed again.
const parsed = vi.hoisted(() => [] as string[]);
vi.mock('mdast-util-from-markdown', async (original) => {
  const real = await original<{ fromMarkdown: (...args: unknown[]) => unknown }>();
  return { ...real, fromMarkdown: (value: string, ...rest: unknown[]) => (parsed.push(value), real.fromMarkdown(value, ...rest)) };
});
// react-markdown parses the text it is given again: what it is handed is counted as parsed too.
vi.mock('react-markdown', async (original) => {
  const real = await original<{ default: (props: { children?: string }) => unknown }>();
  return { ...real, default: (props: { children?: string }) => (parsed.push(props.children ?? ''), real.default(props)) };
});

/** The whole text through react-markdown at once, as before blocks: the output to match. */
const wholeRender = (text: string) =>
  renderToStaticMarkup(
    createElement(
      'div',
      { className: 'markdown' },
      createElement(ReactMarkdown, { remarkPlugins: [remarkGfm], rehypePlugins: [[rehypeHighlight, { detect: false }]], components: markdownComponents }, text),
    ),
  );
// Between blocks react-markdown puts a line break (no effect on the page); blocks rendered apart have none.
const normalise = (html: string) => html.replace(/>\n</g, '><');
const stream = (text: string, size: number) => {
  let split: MarkdownSplit | undefined;
  let shown = '';
  const splits: MarkdownSplit[] = [];
  for (const piece of deltas(text, size)) {
    shown += piece;
    split = splitMarkdown(shown, split);
    splits.push(split);
  }
  return splits;
};

const TRICKY = [
  'Intro paragraph\nwith a lazy line.\n\n',
  'Setext heading\n===\n\n',
  '- loose item one\n\n- loose item two\n\n  continued in the item\n\n',
  '| a | b |\n| - | - |\n| 1 | 2 |\nlazy row\n\n',
  '> quoted\nlazy quote\n\n',
  '```ts\nconst a = 1;\n\nconst b = 2;\n```\nAfter the fence.\n',
  '    indented code\n\n    more of it\n\n',
  '1. first\n2. second\n\n***\n\nThe end, ~~struck~~ and www.example.com.',
].join('');

describe('Markdown in blocks', () => {
  it('splits a growing text into the same blocks as a fresh split, keeping finished blocks as they were', () => {
    for (const [text, size] of [
      [longAnswer(1_500), 13],
      [TRICKY, 3],
    ] as const) {
      const splits = stream(text, size);
      for (let i = 0; i < splits.length; i++) {
        const split = splits[i]!;
        expect(split.blocks.map((b) => b.text).join('')).toBe(split.text);
        expect(split.blocks.map(({ start, text: t }) => ({ start, t }))).toEqual(splitMarkdown(split.text).blocks.map(({ start, text: t }) => ({ start, t })));
        const before = splits[i - 1];
        if (before) for (const block of before.blocks.slice(0, -1)) expect(split.blocks).toContain(block);
      }
    }
  });

  it('parses again only from the last block on when the text grows', () => {
    const text = longAnswer(4_000);
    const first = splitMarkdown(text.slice(0, 3_000));
    expect(first.blocks.length).toBeGreaterThan(10);
    parsed.length = 0;
    const next = splitMarkdown(text.slice(0, 3_010), first);
    expect(parsed).toEqual([text.slice(first.blocks.at(-1)!.start, 3_010)]);
    expect(next.blocks.slice(0, -2)).toEqual(first.blocks.slice(0, -2));
    // Text that does not extend the previous one (an edit) is split afresh.
    parsed.length = 0;
    splitMarkdown(`X${text.slice(1, 3_010)}`, next);
    expect(parsed).toEqual([`X${text.slice(1, 3_010)}`]);
  });

  it('renders what rendering the whole text at once renders', () => {
    for (const text of [longAnswer(8_000), TRICKY, 'A [reference][ref] link.\n\n[ref]: https://example.com/ref\n', 'A note[^1].\n\n[^1]: The note.\n']) {
      expect(normalise(renderToStaticMarkup(createElement(Markdown, { text })))).toBe(normalise(wholeRender(text)));
    }
  });

  it('shows raw HTML as text and drops unsafe URLs, as react-markdown does', () => {
    const hostile = [
      '<script>alert(1)</script>\n\nBetween.\n\n<img src=x onerror="alert(2)">\n\n',
      'Inline <b onclick="alert(3)">bold</b> and [a link](javascript:alert(4)), [data](data:text/html,hi), [fine](https://example.com/ok).\n\n',
      '![pic](javascript:alert(5)) <https://example.com/auto> [vb](vbscript:x)\n',
    ].join('');
    const html = renderToStaticMarkup(createElement(Markdown, { text: hostile }));
    // No code here: every line break is one between blocks.
    expect(html.replace(/\n/g, '')).toBe(wholeRender(hostile).replace(/\n/g, ''));
    // No element from the raw HTML, no handler or unsafe URL inside a tag (as text they are harmless).
    expect(html).not.toMatch(/<(script|b)\b|<[^>]*(onerror|onclick|javascript:|vbscript:|data:)/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('href="https://example.com/ok"');
  });

  it('parses a text once to render it: the tree of the split is what is rendered', () => {
    const text = longAnswer(3_000);
    parsed.length = 0;
    const html = renderToStaticMarkup(createElement(Markdown, { text }));
    expect(html).toContain('hljs');
    expect(parsed).toEqual([text]);
  });

  it('highlights a code block once its closing fence has come', () => {
    const open = '## Code\n\n```ts\nconst value = 1;\n';
    expect(splitMarkdown(open).blocks.at(-1)!.openFence).toBe(true);
    expect(renderToStaticMarkup(createElement(Markdown, { text: open }))).not.toContain('hljs');
    const closed = `${open}\`\`\`\n`;
    expect(splitMarkdown(closed).blocks.at(-1)!.openFence).toBe(false);
    expect(renderToStaticMarkup(createElement(Markdown, { text: closed }))).toContain('<span class="hljs-keyword">const</span>');
  });
});
