import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import { type MarkdownSplit, splitMarkdown } from './markdown-blocks';
import { renderMarkdownNodes } from './markdown-render';

/**
 * For the streaming benchmark (bench/streaming.bench.ts), not the app: the Markdown work of each streamed
 * frame — the block split of the grown text, then the rendering of its growing last block — beside
 * rendering that block with react-markdown (which parses it again), and the split alone. `median` runs
 * a measurement several times. Figures are milliseconds a frame.
 */
export async function markdownPerFrame(frames: string[], median: (run: () => number) => Promise<number>) {
  // As the block renderer before it rendered from the split: one highlighter and GFM's extensions made once.
  const highlighter = rehypeHighlight({ detect: false });
  const extensions = { micromark: gfm(), mdast: gfmFromMarkdown() };
  function sharedGfm(this: { data(): object }) {
    const data = this.data() as { micromarkExtensions?: unknown[]; fromMarkdownExtensions?: unknown[] };
    (data.micromarkExtensions ??= []).push(extensions.micromark);
    (data.fromMarkdownExtensions ??= []).push(extensions.mdast);
  }
  const run = (render: 'tree' | 'reparse' | 'none') => {
    let split: MarkdownSplit | undefined;
    const started = performance.now();
    for (const text of frames) {
      split = splitMarkdown(text, split);
      const tail = split.blocks.at(-1)!;
      if (render === 'tree') renderToStaticMarkup(renderMarkdownNodes(tail.nodes, { highlight: !tail.openFence, components: {} }));
      else if (render === 'reparse')
        renderToStaticMarkup(createElement(ReactMarkdown, { remarkPlugins: [sharedGfm], rehypePlugins: tail.openFence ? [] : [() => highlighter] }, tail.text));
    }
    return (performance.now() - started) / frames.length;
  };
  // Warm up both paths.
  for (let i = 0; i < 2; i++) {
    run('tree');
    run('reparse');
  }
  return { fromTree: await median(() => run('tree')), reparsed: await median(() => run('reparse')), splitOnly: await median(() => run('none')) };
}
