import type { Code, RootContent, Text } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { Point } from 'unist';

/** One top-level Markdown block: its source, from its first character to the next block's. */
export interface MarkdownBlock {
  /** Where it starts in the whole text. */
  start: number;
  text: string;
  /** A fenced code block whose closing fence has not come yet (it is still streaming). */
  openFence: boolean;
  /** Its syntax tree, from the parse that found it: rendering starts from here and does not parse again. */
  nodes: RootContent[];
}

/** A text split into blocks: all but the last are finished, and appending text cannot change them. */
export interface MarkdownSplit {
  text: string;
  blocks: MarkdownBlock[];
}

// A link reference or footnote definition changes blocks before it: such a text is one block.
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

// Made once: building them is a good part of what parsing a small block costs.
const micromarkGfm = gfm();
const mdastGfm = gfmFromMarkdown();
const options = { extensions: [micromarkGfm], mdastExtensions: [mdastGfm] };

/**
 * Where a block starts: its line's start when only blanks come before it there. An indented block
 * keeps its indent (a fence's indent is taken off its code lines: parsed alone, without it, the code
 * would keep it).
 */
function lineStart(source: string, offset: number): number {
  let at = offset;
  while (at > 0 && (source[at - 1] === ' ' || source[at - 1] === '\t')) at--;
  return at === 0 || source[at - 1] === '\n' ? at : offset;
}

/** The top-level nodes of `source`, each with where it starts (the first block always starts at 0). */
function parseBlocks(source: string): { start: number; nodes: RootContent[] }[] {
  const blocks = fromMarkdown(source, options).children.map((node) => ({ start: lineStart(source, node.position?.start.offset ?? 0), nodes: [node] }));
  // Leading blank lines (or an empty text): a block of its own, with nothing to render.
  if (!blocks.length || blocks[0]!.start !== 0) blocks.unshift({ start: 0, nodes: [] });
  return blocks;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Whether a block is a fenced code block still waiting for its closing fence. */
function isOpenFence(text: string): boolean {
  const open = FENCE.exec(text);
  if (!open) return false;
  const fence = open[1]!;
  const lines = text.replace(/\s+$/, '').split('\n');
  if (lines.length < 2) return true;
  const last = lines.at(-1)!.trim();
  return !(last.startsWith(fence[0]!.repeat(fence.length)) && /^(`+|~+)$/.test(last));
}

function toBlocks(text: string, offset: number, parsed: { start: number; nodes: RootContent[] }[]): MarkdownBlock[] {
  return parsed.map(({ start, nodes }, i) => {
    const slice = text.slice(offset + start, i + 1 < parsed.length ? offset + parsed[i + 1]!.start : text.length);
    return { start: offset + start, text: slice, openFence: i === parsed.length - 1 && isOpenFence(slice), nodes };
  });
}

// An opening fence as the fast path below takes it: not indented, a plain language tag or none.
const PLAIN_FENCE = /^(`{3,}|~{3,})([\w+#.-]*)\n/;

/**
 * The tree of a code block whose fence is still open, without parsing it: everything after the fence
 * line is its code, as it is (what the parser makes of it too). Null when the block is not that simple
 * (an indented fence, an info string beyond a language tag, tabs, carriage returns or NULs, which the
 * parser may change) or has closed: it is parsed then. Looking costs two scans of the block for a
 * character or a line, far less than parsing it.
 */
function openFenceNodes(text: string): RootContent[] | null {
  const open = PLAIN_FENCE.exec(text);
  if (!open) return null;
  const fence = open[1]!;
  const code = text.slice(open[0].length);
  // A line of the fence's character, at least as long, with at most 3 spaces before and blanks after, closes it.
  const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`, 'm');
  if (close.test(code) || /[\t\r\0]/.test(code)) return null;
  const node: Code = { type: 'code', lang: open[2] || null, meta: null, value: code.endsWith('\n') ? code.slice(0, -1) : code };
  return [node];
}

// A paragraph of plain words, which a parse turns into one paragraph holding the same text: it starts with a
// letter (no list, heading, quote, fence, table or indented code), each line after a soft break starts with a
// letter too (no line starts another block or underlines a heading), no space comes before a line break (two
// would make a hard one), and no character has a meaning inside a line (emphasis, code, links, images, HTML,
// escapes, entities, tables, strikethrough; an autolink needs "/" or "@", or "www.", checked apart). Spaces at
// its end are not in its text. (Letters outside the Basic Multilingual Plane are left to the parser.)
const PLAIN_PARAGRAPH = /^\p{L}(?:[\p{L}\p{N},.;:?!'"()-]| (?= *[^\s])|\n(?=\p{L}))* *$/u;
const ASTRAL = /[\uD800-\uDFFF]/;

/** Where `offset` of `text` is, as the parser counts: line and column from 1. */
function pointAt(text: string, offset: number): Point {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return { line, column: offset - lineStart + 1, offset };
}

/**
 * The tree of a block of plain words without parsing it (the one a parse makes, positions included), or null
 * when the block is not that simple. A prose paragraph growing word by word is then not parsed every frame:
 * looking costs one scan of the block, far less than parsing it.
 */
export function plainParagraphNodes(text: string): RootContent[] | null {
  if (!PLAIN_PARAGRAPH.test(text) || ASTRAL.test(text) || /www\./i.test(text)) return null;
  const value = text.trimEnd();
  const start: Point = { line: 1, column: 1, offset: 0 };
  const textNode: Text = { type: 'text', value, position: { start, end: pointAt(text, value.length) } };
  return [{ type: 'paragraph', children: [textNode], position: { start: { ...start }, end: pointAt(text, text.length) } }];
}

/**
 * Split Markdown into top-level blocks, each with its syntax tree. Given the split of a text this one extends (a streamed answer
 * growing), only the last block onwards is parsed again: the finished blocks are kept as they were
 * (the same objects), so their rendering can be kept too.
 */
export function splitMarkdown(text: string, previous?: MarkdownSplit): MarkdownSplit {
  if (previous?.text === text) return previous;
  const last = previous?.blocks.at(-1);
  // A text that extends the previous one: only from its last block on is new (and need be looked at).
  const grown = previous && last && text.startsWith(previous.text) ? last : undefined;
  const from = grown?.start ?? 0;
  // A paragraph of plain words growing (prose between its marks): its tree without a parse.
  const tail = from ? text.slice(from) : text;
  const plain = plainParagraphNodes(tail);
  if (plain) return { text, blocks: [...(grown ? previous!.blocks.slice(0, -1) : []), { start: from, text: tail, openFence: false, nodes: plain }] };
  if (DEFINITION.test(from ? text.slice(from) : text))
    return { text, blocks: [{ start: 0, text, openFence: false, nodes: fromMarkdown(text, options).children }] };
  // A code block still open that grew: its tree without a parse (most of a streamed answer can be code).
  // (Only a block that starts its line: one that does not has its fence's indent at the end of the block before.)
  const openFence = grown?.openFence && (from === 0 || text[from - 1] === '\n') ? openFenceNodes(text.slice(from)) : null;
  if (openFence) return { text, blocks: [...previous!.blocks.slice(0, -1), { start: from, text: text.slice(from), openFence: true, nodes: openFence }] };
  if (!from || !previous) return { text, blocks: toBlocks(text, 0, parseBlocks(text)) };
  const kept = previous.blocks.slice(0, -1);
  return { text, blocks: [...kept, ...toBlocks(text, from, parseBlocks(text.slice(from)))] };
}
