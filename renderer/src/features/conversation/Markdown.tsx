import { type ComponentProps, memo, useState } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import { type MarkdownSplit, remarkGfmShared, splitMarkdown } from './markdown-blocks';

function textOf(node: unknown): string {
  if (typeof node === 'string') return node;
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (node && typeof node === 'object' && 'props' in node) return textOf((node as { props: { children?: unknown } }).props.children);
  return '';
}

function CodeBlock(props: ComponentProps<'pre'>) {
  const [copied, setCopied] = useState(false);
  const code = textOf(props.children);
  return (
    <div className="code-block">
      <button
        type="button"
        className="copy-button"
        aria-label="Copy code"
        onClick={() => {
          void navigator.clipboard?.writeText(code).then(() => {
            setCopied(true);
            setTimeout(() => setCopied(false), 1200);
          });
        }}
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <pre>{props.children}</pre>
    </div>
  );
}

export const markdownComponents = {
  pre: CodeBlock,
  a: (props: ComponentProps<'a'>) => <a {...props} target="_blank" rel="noreferrer noopener" />,
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

// rehype-highlight registers every common language in a new highlighter each time a processor is
// made, and react-markdown makes one per render: made once here, the highlighter is shared.
const highlight = rehypeHighlight({ detect: false });
const highlighted: ComponentProps<typeof ReactMarkdown>['rehypePlugins'] = [() => highlight];
const plain: ComponentProps<typeof ReactMarkdown>['rehypePlugins'] = [];
const remarkPlugins = [remarkGfmShared] as ComponentProps<typeof ReactMarkdown>['remarkPlugins'];

/** One top-level block, parsed and highlighted once: it renders again only when its own text changes. */
const Block = memo(function Block({ text, highlight, linkImages }: { text: string; highlight: boolean; linkImages: boolean }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={highlight ? highlighted : plain} components={linkImages ? linkedImages : markdownComponents}>
      {text}
    </ReactMarkdown>
  );
});

/**
 * Model Markdown, rendered without raw HTML (it shows as text); code highlighted by language tag.
 * `linkImages` turns images into links (for Markdown that came from the web).
 *
 * Rendered block by block: while an answer streams only its last block is parsed and rendered again,
 * and a code block still waiting for its closing fence is highlighted once it closes.
 */
export const Markdown = memo(function Markdown({ text, linkImages = false }: { text: string; linkImages?: boolean }) {
  // The previous split, kept across renders: the next one parses only from its last block on.
  const [last] = useState<{ split?: MarkdownSplit }>(() => ({}));
  const split = splitMarkdown(text, last.split);
  last.split = split;
  return (
    <div className="markdown">
      {split.blocks.map((block, i) => (
        <Block key={i} text={block.text} highlight={!block.openFence} linkImages={linkImages} />
      ))}
    </div>
  );
});
