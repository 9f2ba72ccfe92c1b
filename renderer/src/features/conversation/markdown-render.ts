import type { Element, Root as HastRoot } from 'hast';
import { type Components, toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { urlAttributes } from 'html-url-attributes';
import type { RootContent } from 'mdast';
import { toHast } from 'mdast-util-to-hast';
import type { ReactElement } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { defaultUrlTransform } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import { VFile } from 'vfile';

// Markdown syntax trees to React, the way react-markdown renders them (remark-rehype, then rehype-highlight,
// then its own pass), but from a tree the block split has already parsed: a streamed frame parses its
// tail once instead of twice.

// rehype-highlight registers every common language when made: made once, the highlighter is shared.
const highlighter = rehypeHighlight({ detect: false }) as unknown as (tree: HastRoot, file: VFile) => void;

/**
 * As react-markdown's last pass: raw HTML shows as its text, and URLs that are not safe are dropped. A plain walk
 * of the children (what unist-util-visit walks), looking up each property an element has among the URL
 * attributes: it runs on every block rendered, a streamed frame's growing block included.
 */
function makeSafe(parent: HastRoot | Element): void {
  const children = parent.children;
  for (let i = 0; i < children.length; i++) {
    const node = children[i]!;
    if (node.type === 'raw') {
      children[i] = { type: 'text', value: node.value };
      continue;
    }
    if (node.type !== 'element') continue;
    for (const name of Object.keys(node.properties)) {
      if (!Object.hasOwn(urlAttributes, name)) continue;
      const tags = urlAttributes[name];
      if (tags === null || tags!.includes(node.tagName)) node.properties[name] = defaultUrlTransform(String(node.properties[name] || ''));
    }
    makeSafe(node);
  }
}

/** Render Markdown nodes (one block's, or a whole text's) with these components; code highlighted if asked. */
export function renderMarkdownNodes(nodes: RootContent[], { highlight, components }: { highlight: boolean; components: Partial<Components> }): ReactElement {
  // allowDangerousHtml keeps raw HTML in the tree (as `raw`), for makeSafe to turn into text: it is shown, never run.
  const tree = toHast({ type: 'root', children: nodes }, { allowDangerousHtml: true }) as HastRoot;
  if (highlight) highlighter(tree, new VFile());
  makeSafe(tree);
  return toJsxRuntime(tree, { Fragment, components, ignoreInvalidStyle: true, jsx, jsxs, passKeys: true, passNode: true }) as ReactElement;
}
