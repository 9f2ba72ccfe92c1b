import { type ComponentProps, memo, useState } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

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

const components = {
  pre: CodeBlock,
  a: (props: ComponentProps<'a'>) => <a {...props} target="_blank" rel="noreferrer noopener" />,
};

/** Images from elsewhere become links: the CSP would block them, and loading one would tell its server you looked. */
const linkedImages = {
  ...components,
  img: ({ src, alt }: ComponentProps<'img'>) => (
    <a href={typeof src === 'string' ? src : undefined} target="_blank" rel="noreferrer noopener" className="markdown-image-link">
      [image{alt ? `: ${alt}` : ''}]
    </a>
  ),
};

const rehypePlugins = [[rehypeHighlight, { detect: false }]] as ComponentProps<typeof ReactMarkdown>['rehypePlugins'];
const remarkPlugins = [remarkGfm];

/**
 * Model Markdown, rendered without raw HTML (it shows as text); code highlighted by language tag.
 * `linkImages` turns images into links (for Markdown that came from the web).
 */
export const Markdown = memo(function Markdown({ text, linkImages = false }: { text: string; linkImages?: boolean }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={linkImages ? linkedImages : components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
