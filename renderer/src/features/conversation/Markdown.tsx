import { type ComponentProps, memo, useState } from 'react';
import { Icon } from '../../components/Icon';
import { type MarkdownBlock, type MarkdownSplit, splitMarkdown } from './markdown-blocks';
import { type MarkdownChunk, chunkBlocks } from './markdown-chunks';
import { renderMarkdownNodes } from './markdown-render';
import './markdown.css';

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node && typeof node === 'object' && 'props' in node) return textOf((node as { props: { children?: unknown } }).props.children);
  return '';
}

/** The fence's language tag ("ts" of ```ts), which remark puts on the code element as `language-ts`. */
function languageOf(node: unknown): string | null {
  if (!node || typeof node !== 'object' || !('props' in node)) return null;
  const className = (node as { props: { className?: unknown } }).props.className;
  const tag = typeof className === 'string' ? /(?:^|\s)language-(\S+)/.exec(className) : null;
  return tag ? tag[1]! : null;
}

/** A fenced block: its language and a Copy button always shown above it (and reachable by Tab). */
function CodeBlock(props: ComponentProps<'pre'>) {
  const [copied, setCopied] = useState(false);
  const code = textOf(props.children);
  const language = languageOf(Array.isArray(props.children) ? props.children[0] : props.children);
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="code-language">{language ?? 'text'}</span>
        <button
          type="button"
          className="copy-button"
          aria-label={copied ? 'Copied' : language ? `Copy ${language} code` : 'Copy code'}
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1200);
            });
          }}
        >
          <Icon name={copied ? 'check' : 'copy'} size={12} />
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre>{props.children}</pre>
    </div>
  );
}

export const markdownComponents = {
  pre: CodeBlock,
  // `node` (the syntax tree node, handed to components) is not an attribute of the link.
  a: ({ node: _node, ...props }: ComponentProps<'a'> & { node?: unknown }) => <a {...props} target="_blank" rel="noreferrer noopener" />,
};

/** Images from elsewhere become links: the CSP would block them, and loading one would tell its server you looked. */
const linkedImages = {
  ...markdownComponents,
  img: ({ src, alt }: ComponentProps<'img'>) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noreferrer noopener" className="markdown-image-link">
      [image{alt ? `: ${alt}` : ''}]
    </a>
  ),
};

/**
 * One top-level block, rendered from the tree its split parsed: it renders again only when its own text
 * changes (a finished block is rendered and highlighted once).
 */
const Block = memo(
  function Block({ block, linkImages }: { block: MarkdownBlock; linkImages: boolean }) {
    return renderMarkdownNodes(block.nodes, { highlight: !block.openFence, components: linkImages ? linkedImages : markdownComponents });
  },
  (before, after) => before.linkImages === after.linkImages && before.block.text === after.block.text && before.block.openFence === after.block.openFence,
);

/**
 * Blocks in a group of their own (see markdown-chunks.ts): a group that is full never renders again, and
 * while the answer streams it is one box the browser can skip (laid out, painted and checked for
 * visibility as one, not block by block). The last group holds the growing block.
 */
const Chunk = memo(
  function Chunk({
    blocks,
    chunk,
    skippable,
    linkImages,
  }: {
    blocks: readonly MarkdownBlock[];
    chunk: MarkdownChunk;
    skippable: boolean;
    linkImages: boolean;
  }) {
    const shown = [];
    for (let i = chunk.from; i < chunk.to; i++) shown.push(<Block key={i - chunk.from} block={blocks[i]!} linkImages={linkImages} />);
    return (
      // data-done: full (contained while the answer streams); data-full: full and far enough behind to be skipped out of view.
      <div className="markdown-chunk" data-done={chunk.full && chunk.from > 0 ? '' : undefined} data-full={skippable ? '' : undefined}>
        {shown}
      </div>
    );
  },
  // Finished blocks never change: the same first and last block (and bounds) is the same group.
  (before, after) =>
    before.linkImages === after.linkImages &&
    before.skippable === after.skippable &&
    before.chunk.from === after.chunk.from &&
    before.chunk.to === after.chunk.to &&
    before.chunk.full === after.chunk.full &&
    before.blocks[before.chunk.from] === after.blocks[after.chunk.from] &&
    before.blocks[before.chunk.to - 1] === after.blocks[after.chunk.to - 1],
);

/**
 * How far (characters) a full group must end before the end of the text to be a box the browser may skip.
 * A group given `content-visibility: auto` starts skipped until the browser has seen whether it is in
 * view, and one in view is then styled and laid out again in a second pass of the same frame: a group
 * just filled is in view at the bottom of a followed answer (and a slow frame brings several at once), so
 * it becomes skippable only once this much text has come after it, well more than a screen of it.
 */
export const SKIP_BEHIND = 3_000;

/**
 * Model Markdown, rendered without raw HTML (it shows as text); code highlighted by language tag.
 * `linkImages` turns images into links (for Markdown that came from the web).
 *
 * Rendered block by block: while an answer streams only its last block is parsed (once) and rendered
 * again, and a code block still waiting for its closing fence is highlighted once it closes. Blocks sit
 * in groups (`.markdown-chunk`), so a frame touches the last group, not every block of a long answer.
 */
export const Markdown = memo(function Markdown({ text, linkImages = false }: { text: string; linkImages?: boolean }) {
  // The previous split and grouping, kept across renders: the next split parses only from its last block on.
  const [last] = useState<{ split?: MarkdownSplit; chunks?: MarkdownChunk[] }>(() => ({}));
  const split = splitMarkdown(text, last.split);
  const chunks = chunkBlocks(split, last.split, last.chunks);
  last.split = split;
  last.chunks = chunks;
  return (
    <div className="markdown">
      {chunks.map((chunk) => (
        <Chunk
          key={chunk.from}
          blocks={split.blocks}
          chunk={chunk}
          // The first group stays open to the margins around it, as the answer's first block is.
          skippable={chunk.full && chunk.from > 0 && text.length - split.blocks[chunk.to]!.start >= SKIP_BEHIND}
          linkImages={linkImages}
        />
      ))}
    </div>
  );
});
