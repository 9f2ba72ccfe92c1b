import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { describe, expect, it, vi } from 'vitest';
import { deltas, longAnswer } from '#test-support/long-answer';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { type MarkdownSplit, plainParagraphNodes, splitMarkdown } from './markdown-blocks';
import { Markdown, markdownComponents } from './Markdown';
import { renderMarkdownNodes } from './markdown-render';

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
const wholeRender = (text: string, highlight = true) =>
  renderToStaticMarkup(
    createElement(
      'div',
      { className: 'markdown' },
      createElement(
        ReactMarkdown,
        { remarkPlugins: [remarkGfm], rehypePlugins: highlight ? [[rehypeHighlight, { detect: false }]] : [], components: markdownComponents },
        text,
      ),
    ),
  );
/** A split's blocks rendered one by one from their trees, as the window renders them (a fence still open is not highlighted). */
const blocksHtml = (split: MarkdownSplit, highlight: boolean) =>
  `<div class="markdown">${split.blocks
    .map((b) => renderToStaticMarkup(renderMarkdownNodes(b.nodes, { highlight: highlight && !b.openFence, components: markdownComponents })))
    .join('')}</div>`;
/** Syntax trees without where each node was in the text (a block parsed alone counts from its own start). */
function withoutPositions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPositions);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (k === 'position' ? [] : [[k, withoutPositions(v)]])));
}
/** HTML without the groups finished blocks sit in (`<div class="markdown-chunk">`): their blocks in their place. */
function unwrapChunks(html: string): string {
  const open = /<div class="markdown-chunk"[^>]*>/;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    // Its closing tag: the </div> that balances it (text is escaped, so every "<div" and "</div>" is a tag).
    let depth = 1;
    let at = m.index + m[0].length;
    const tag = /<div[\s>]|<\/div>/g;
    tag.lastIndex = at;
    for (let t = tag.exec(html); t; t = tag.exec(html)) {
      depth += t[0] === '</div>' ? -1 : 1;
      if (depth === 0) {
        at = t.index;
        break;
      }
    }
    html = html.slice(0, m.index) + html.slice(m.index + m[0].length, at) + html.slice(at + '</div>'.length);
  }
  return html;
}
// Between blocks react-markdown puts a line break (no effect on the page); blocks rendered apart have none.
const normalise = (html: string) => unwrapChunks(html).replace(/>\n</g, '><');
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
    // Cut in a paragraph (not in a code block, which is not parsed while its fence is open: below).
    const cut = text.indexOf('keeps only what it needs', 2_500);
    const first = splitMarkdown(text.slice(0, cut));
    expect(first.blocks.length).toBeGreaterThan(10);
    parsed.length = 0;
    const next = splitMarkdown(text.slice(0, cut + 10), first);
    expect(parsed).toEqual([text.slice(first.blocks.at(-1)!.start, cut + 10)]);
    expect(next.blocks.slice(0, -2)).toEqual(first.blocks.slice(0, -2));
    // Text that does not extend the previous one (an edit) is split afresh.
    parsed.length = 0;
    splitMarkdown(`X${text.slice(1, cut + 10)}`, next);
    expect(parsed).toEqual([`X${text.slice(1, cut + 10)}`]);
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
    expect(unwrapChunks(html).replace(/\n/g, '')).toBe(wholeRender(hostile).replace(/\n/g, ''));
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

  it('does not parse a code block while its fence is open, and its tree is the one a parse makes', () => {
    const text = longAnswer(4_000);
    const cut = text.indexOf('```python') + 40;
    const first = splitMarkdown(text.slice(0, cut));
    expect(first.blocks.at(-1)!.openFence).toBe(true);
    parsed.length = 0;
    const next = splitMarkdown(text.slice(0, cut + 30), first);
    expect(parsed).toEqual([]);
    expect(withoutPositions(next.blocks.at(-1)!.nodes)).toEqual(withoutPositions(splitMarkdown(text.slice(0, cut + 30)).blocks.at(-1)!.nodes));
    // Its closing fence: parsed again, and highlighted.
    const closed = text.indexOf('```\n', cut) + 4;
    parsed.length = 0;
    const done = splitMarkdown(text.slice(0, closed), next);
    expect(parsed).toEqual([text.slice(next.blocks.at(-1)!.start, closed)]);
    expect(done.blocks.at(-1)!.openFence).toBe(false);
  });

  it('at every length of a streamed text, renders what rendering that text whole renders', () => {
    // Code fences of both kinds (one longer, holding a shorter one; one with no language; tabs and a
    // closing fence that is indented or too short), lists, a table, block quotes, and a fence left open.
    // (An empty list item right after an indented code block, as "1." is at first, parses as a list alone and as a
    // paragraph after the code: the one case known where a block parsed alone differs for a frame. Not here.)
    const text = [
      TRICKY.replace('\n\n1. first', '\n\nThen:\n\n1. first'),
      '\n\n~~~python\ndef f():\n\treturn 1\n```\n~~\n  ~~~\nAfter.\n\n',
      '````md\n```ts\ninner\n```\n````\n\n',
      '- item\n  - nested\n\n    ```\n    in a list\n    ```\n- last\n\n',
      '> quote\n> ```js\n> let q = 1;\n> ```\n\n',
      '| x | y |\n|:-|-:|\n| `a` | **b** |\n\n',
      '```\nno language\n\n\n```\n',
      '   ```ts\n   indented fence\n  ```\n\n',
      '```rust\nfn main() {\n    println!("open");\n',
    ].join('');
    let split: MarkdownSplit | undefined;
    for (let end = 1; end <= text.length; end++) {
      const shown = text.slice(0, end);
      split = splitMarkdown(shown, split);
      const fresh = splitMarkdown(shown);
      expect(withoutPositions(split.blocks.map((b) => [b.start, b.text, b.openFence, b.nodes])), JSON.stringify(shown.slice(-40))).toEqual(
        withoutPositions(fresh.blocks.map((b) => [b.start, b.text, b.openFence, b.nodes])),
      );
      // Highlighting apart (a fence still open is not highlighted yet), the same HTML as one parse of the whole.
      expect(normalise(blocksHtml(split, false))).toBe(normalise(wholeRender(shown, false)));
      // Highlighted too (every few lengths and at the end: highlighting is what costs here).
      if (!split.blocks.at(-1)!.openFence && (end % 5 === 0 || end === text.length))
        expect(normalise(blocksHtml(split, true))).toBe(normalise(wholeRender(shown)));
    }
    expect(split!.blocks.at(-1)!.openFence).toBe(true);
    // Hundreds of whole renders, deterministic: on a loaded machine it needs more than the default 20 s.
  }, 90_000);

  it('takes a paragraph of plain words growing without a parse, with the tree a parse makes', () => {
    const prose = 'Here is the plan, part by part: first (the loader) reads it once; then "the index" is built.\nNothing else changes';
    let split: MarkdownSplit | undefined;
    parsed.length = 0;
    for (let end = 1; end <= prose.length; end++) {
      split = splitMarkdown(prose.slice(0, end), split);
      expect(split.blocks.length).toBe(1);
    }
    // Only the frame that ends at the line break is parsed (what the next line starts is not known yet).
    expect(parsed).toEqual([prose.slice(0, prose.indexOf('\n') + 1)]);
    expect(split!.blocks[0]!.nodes).toEqual(fromMarkdown(prose, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children);
    // After a heading and a list, the paragraph growing is the only block looked at, and it is not parsed either.
    const after = '## Plan\n\n- one\n- two\n\nThe loader reads each line once';
    const first = splitMarkdown(after.slice(0, -5));
    parsed.length = 0;
    const next = splitMarkdown(after, first);
    expect(parsed).toEqual([]);
    expect(next.blocks.slice(0, -1)).toEqual(first.blocks.slice(0, -1));
    expect(normalise(renderToStaticMarkup(createElement(Markdown, { text: after })))).toBe(normalise(wholeRender(after)));
  });

  it('a block it takes as plain words is exactly what a parse makes of it (positions too), and it leaves the rest to the parser', () => {
    const parse = (text: string) => fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children;
    const cases = [
      'Plain words.',
      'Trailing spaces   ',
      'Two lines\nof prose',
      'Soft break before\nthe end  ',
      'café, naïve: (déjà) vu! "quoted" it\'s 42 - ok?',
      // Not plain: a hard break, a space before a break, a heading underline, a list, emphasis, code, links, HTML, autolinks.
      'Hard  \nbreak',
      'Space \nbreak',
      'Heading\n===',
      'Heading\n---',
      'Item\n- one',
      'Text\n1. one',
      'a_b_ c',
      'Some *emphasis*',
      'Some `code`',
      'A [link](x)',
      'An <b>tag</b>',
      'Visit www.example.com now',
      'Mail me@example.com',
      'See https://example.com',
      'Tab\there',
      '1. Not prose',
      '    indented',
      'Ends with a break\n',
      'A & b',
      'Math 𝐀 letter',
    ];
    const plain = cases.filter((c) => plainParagraphNodes(c) !== null);
    expect(plain).toEqual(cases.slice(0, 5));
    for (const text of cases) {
      const nodes = plainParagraphNodes(text);
      if (nodes) expect(nodes, JSON.stringify(text)).toEqual(parse(text));
    }
    // Random strings of letters, digits, spaces, breaks and punctuation (some with a meaning): whenever it takes one, the tree is the parser's.
    const alphabet = ['a', 'b', 'W', 'w', 'é', '1', ' ', ' ', '\n', '.', ',', ':', '-', '(', '!', '"', '=', '*', '_', '#', '>'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    let taken = 0;
    for (let i = 0; i < 3_000; i++) {
      let text = '';
      for (let n = 1 + random(24); n > 0; n--) text += alphabet[random(alphabet.length)];
      const nodes = plainParagraphNodes(text);
      if (!nodes) continue;
      taken++;
      expect(nodes, JSON.stringify(text)).toEqual(parse(text));
    }
    expect(taken).toBeGreaterThan(100);
  });
});
