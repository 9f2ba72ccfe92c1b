import { gfm } from '@joplin/turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** Where the Markdown came from: Readability's article, a main-content element, or the whole body. */
export type HtmlSource = 'readability' | 'article' | 'main' | 'body';

export interface HtmlMarkdown {
  title: string;
  markdown: string;
  source: HtmlSource;
}

/** Elements whose content is never page text. Nothing in a page runs: the DOM here has no script engine. */
const NEVER_TEXT = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'svg',
  'canvas',
  'video',
  'audio',
  'form',
  'button',
  'select',
  'input',
  'textarea',
  'link',
  'meta',
];
/** Page furniture dropped when there is no article to extract. */
const FURNITURE = ['nav', 'header', 'footer', 'aside', '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[aria-hidden="true"]', '[hidden]'];

/** Readability needs some text to call a page an article; below this the fallbacks are used. */
const MIN_ARTICLE_CHARS = 200;
/** Past this many elements Readability gives up (its cost grows quickly) and the fallbacks are used. */
const MAX_READABILITY_ELEMENTS = 20_000;

const HEAVY_START = /<(script|style|template|svg|noscript)\b[^>]{0,4096}>|<!--/gi;

/**
 * Script, style and template bodies, SVG drawings and comments carry no page text and are often most of
 * a page's bytes: they are cut before parsing. Script and style end at the first closing tag, as in
 * HTML's own parsing; an element never closed runs to the end. One pass, with indexOf-style searches
 * only, so a hostile page cannot make it slow.
 */
function withoutHeavyParts(html: string): string {
  let out = '';
  let last = 0;
  HEAVY_START.lastIndex = 0;
  for (let match = HEAVY_START.exec(html); match; match = HEAVY_START.exec(html)) {
    out += html.slice(last, match.index);
    let end = html.length;
    if (match[0] === '<!--') {
      const close = html.indexOf('-->', HEAVY_START.lastIndex);
      if (close >= 0) end = close + 3;
    } else {
      const closing = new RegExp(`</${match[1]!}\\s*>`, 'gi');
      closing.lastIndex = HEAVY_START.lastIndex;
      const close = closing.exec(html);
      if (close) end = close.index + close[0].length;
    }
    last = end;
    HEAVY_START.lastIndex = end;
  }
  return out + html.slice(last);
}

type Doc = ReturnType<typeof parseHTML>['document'];
type El = ReturnType<Doc['querySelector']>;

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', linkStyle: 'inlined' });
  service.use(gfm);
  service.remove(NEVER_TEXT as never);
  // Code blocks keep their language from `language-x` / `lang-x` classes on <pre> or <code>.
  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as { textContent: string | null; className?: string; querySelector(s: string): { className?: string } | null };
      const classes = `${pre.className ?? ''} ${pre.querySelector('code')?.className ?? ''}`;
      const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? '';
      const code = (pre.textContent ?? '').replace(/\n$/, '');
      const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
      return `\n\n${fence}${language}\n${code}\n${fence}\n\n`;
    },
  });
  // "- item" and "1. item" rather than turndown's wider padding; nested content indented to match.
  service.addRule('compactListItem', {
    filter: 'li',
    replacement: (content, node) => {
      const item = node as unknown as {
        parentNode: { nodeName: string; getAttribute(n: string): string | null; children: ArrayLike<unknown> } | null;
        nextSibling: unknown;
      };
      const parent = item.parentNode;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1') || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (item.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  // Images only say something through their alt text; decorative ones are dropped.
  service.addRule('imageWithAlt', {
    filter: 'img',
    replacement: (_content, node) => {
      const image = node as unknown as { getAttribute(n: string): string | null };
      const alt = (image.getAttribute('alt') ?? '').replace(/\s+/g, ' ').replace(/[[\]]/g, '').trim();
      const src = image.getAttribute('src');
      return alt && src ? `![${alt}](${src})` : '';
    },
  });
  return service;
}

function longestRun(text: string, char: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/** Links and images point where they would in a browser; links that would run code lose their target. */
function absolutise(document: Doc, base: string): void {
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute) ?? '';
      let url: URL | null;
      try {
        url = new URL(value, base);
      } catch {
        url = null;
      }
      if (url && (url.protocol === 'http:' || url.protocol === 'https:')) element.setAttribute(attribute, url.href);
      else element.removeAttribute(attribute);
    }
  }
}

function prepare(html: string, base: string): Doc {
  const { document } = parseHTML(withoutHeavyParts(html));
  for (const element of document.querySelectorAll(NEVER_TEXT.join(','))) element.remove();
  absolutise(document, base);
  return document;
}

function pageTitle(document: Doc): string {
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute('content');
  return (document.querySelector('title')?.textContent ?? og ?? '').replace(/\s+/g, ' ').trim();
}

function fallback(document: Doc): { element: El; source: HtmlSource } {
  for (const element of document.querySelectorAll(FURNITURE.join(','))) element.remove();
  const article = document.querySelector('article');
  if (article && (article.textContent ?? '').trim()) return { element: article, source: 'article' };
  const main = document.querySelector('main, [role="main"]');
  if (main && (main.textContent ?? '').trim()) return { element: main, source: 'main' };
  return { element: document.querySelector('body') ?? document.documentElement, source: 'body' };
}

/**
 * Reduce a page to its main content as Markdown, starting with `# <title>`: Readability first, then
 * `<article>`, `<main>`, `<body>`. Headings, links, lists, code blocks and tables are kept.
 */
export function htmlToMarkdown(html: string, pageUrl: string): HtmlMarkdown {
  const document = prepare(html, pageUrl);
  const title = pageTitle(document) || new URL(pageUrl).hostname;
  let body: string | null = null;
  let source: HtmlSource = 'readability';
  try {
    const article = new Readability(document as never, {
      keepClasses: true,
      charThreshold: MIN_ARTICLE_CHARS,
      maxElemsToParse: MAX_READABILITY_ELEMENTS,
    }).parse();
    if (article?.content && (article.textContent ?? '').trim().length >= MIN_ARTICLE_CHARS) body = article.content;
  } catch {
    body = null;
  }
  let markdown: string;
  if (body !== null) {
    markdown = turndown().turndown(body);
  } else {
    // Readability changes the document it reads: start again from the page.
    const picked = fallback(prepare(html, pageUrl));
    source = picked.source;
    markdown = picked.element ? turndown().turndown(picked.element as never) : '';
  }
  return { title, markdown: withTitle(title, markdown), source };
}

function withTitle(title: string, markdown: string): string {
  const lines = markdown.trim().split('\n');
  // The page's own first heading often repeats the title.
  const first = lines[0]?.replace(/^#+\s*/, '').trim();
  if (first && lines[0]!.startsWith('#') && first.toLowerCase() === title.toLowerCase()) lines.shift();
  const rest = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return `# ${title}\n\n${rest}`.trim() + '\n';
}
