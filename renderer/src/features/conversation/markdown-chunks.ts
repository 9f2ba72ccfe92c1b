import type { MarkdownSplit } from './markdown-blocks';

/** Blocks `from` (inclusive) to `to` (exclusive) of a split, shown as one group. */
export interface MarkdownChunk {
  from: number;
  to: number;
  /**
   * No block will join it. While the answer streams a full group (but the first) is a box of its own
   * (`content-visibility: auto`: laid out, painted and checked for visibility as one, and skipped out of view).
   */
  full: boolean;
}

/** Blocks in a group before it may be full: a frame then walks groups, not blocks (a 40 KB answer is ~500 blocks). */
export const CHUNK_BLOCKS = 4;

/**
 * Blocks a full group may end before. A group that is a box of its own keeps the bottom margin of its
 * last block inside it, so margins across its edge add up instead of collapsing: the next group must
 * start with a block whose top margin is 0 with nothing inside it that collapses through it (a
 * paragraph, a code block, a table: see markdown.css). Then the space between the two is what it was
 * without groups, and the answer looks the same grouped or not.
 */
const STARTS_CHUNK = new Set(['paragraph', 'code', 'table']);

/**
 * The blocks of `split` in groups: the same groups as before for the blocks it kept from `previous` (a
 * streamed answer growing), so a full group is the same group every frame. A group is full from
 * CHUNK_BLOCKS finished blocks on, at the next finished block that may start one; the last group takes
 * the blocks since, the growing last block included (so a block that finishes stays where it is).
 */
export function chunkBlocks(split: MarkdownSplit, previous?: MarkdownSplit, previousChunks?: readonly MarkdownChunk[]): MarkdownChunk[] {
  const finished = split.blocks.length - 1;
  const chunks: MarkdownChunk[] = [];
  // Full groups of blocks the split kept (the same objects: it kept them all, or parsed afresh) stay as they were.
  const lastFull = previousChunks?.findLast((c) => c.full);
  if (previous && lastFull && lastFull.to <= finished && previous.blocks[lastFull.to - 1] === split.blocks[lastFull.to - 1]) {
    for (const chunk of previousChunks!) if (chunk.full) chunks.push(chunk);
  }
  let from = chunks.at(-1)?.to ?? 0;
  for (let i = from + 1; i < finished; i++) {
    if (i - from < CHUNK_BLOCKS || !STARTS_CHUNK.has(split.blocks[i]!.nodes[0]?.type ?? '')) continue;
    chunks.push({ from, to: i, full: true });
    from = i;
  }
  chunks.push({ from, to: finished + 1, full: false });
  return chunks;
}
