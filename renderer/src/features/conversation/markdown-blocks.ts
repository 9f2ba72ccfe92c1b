import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/** One top-level Markdown block: its source, from its first character to the next block's. */
export interface MarkdownBlock {
  /** Where it starts in the whole text. */
  start: number;
  text: string;
  /** A fenced code block whose closing fence has not come yet (it is still streaming). */
  openFence: boolean;
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
 * GitHub Flavored Markdown for a unified processor (as remark-gfm, for reading only), with extensions
 * made once instead of once per processor — react-markdown makes a processor per render.
 */
export function remarkGfmShared(this: { data(): Record<string, unknown> }): void {
  const data = this.data() as { micromarkExtensions?: unknown[]; fromMarkdownExtensions?: unknown[] };
  (data.micromarkExtensions ??= []).push(micromarkGfm);
  (data.fromMarkdownExtensions ??= []).push(mdastGfm);
}

/** Offsets of the top-level blocks of `source` (the first is always 0). */
function blockStarts(source: string): number[] {
  const starts = fromMarkdown(source, options).children.map((node) => node.position?.start.offset ?? 0);
  if (!starts.length || starts[0] !== 0) starts.unshift(0);
  return starts;
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

function toBlocks(text: string, offset: number, starts: number[]): MarkdownBlock[] {
  return starts.map((start, i) => {
    const slice = text.slice(offset + start, i + 1 < starts.length ? offset + starts[i + 1]! : text.length);
    return { start: offset + start, text: slice, openFence: i === starts.length - 1 && isOpenFence(slice) };
  });
}

/**
 * Split Markdown into top-level blocks. Given the split of a text this one extends (a streamed answer
 * growing), only the last block onwards is parsed again: the finished blocks are kept as they were
 * (the same objects), so their rendering can be kept too.
 */
export function splitMarkdown(text: string, previous?: MarkdownSplit): MarkdownSplit {
  if (previous?.text === text) return previous;
  const last = previous?.blocks.at(-1);
  // A text that extends the previous one: only from its last block on is new (and need be looked at).
  const from = previous && last && previous.blocks.length > 1 && text.startsWith(previous.text) ? last.start : 0;
  if (DEFINITION.test(from ? text.slice(from) : text)) return { text, blocks: [{ start: 0, text, openFence: false }] };
  if (!from || !previous) return { text, blocks: toBlocks(text, 0, blockStarts(text)) };
  const kept = previous.blocks.slice(0, -1);
  return { text, blocks: [...kept, ...toBlocks(text, from, blockStarts(text.slice(from)))] };
}
