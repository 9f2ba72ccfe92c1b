import { type MarkdownSplit, splitMarkdown } from './markdown-blocks';
import { renderMarkdownNodes } from './markdown-render';
import { type IdleScheduler, browserIdle, runWhenIdle } from './idle-warmup';

// The first rich answer of a window's life was the slowest to stream: its first second ran the
// Markdown parser's paths for headings, lists, tables and links, and highlight.js's grammars, for the
// first time. Cold, that code is several times slower (lazily compiled on first call, then run
// unoptimised), and a frame that met several constructs at once took 50–65 ms of CPU (an answer
// streamed after it: ≤ 30 ms). So, once, when the window is idle, an answer like a model's is streamed
// through the same split-and-render path in small steps, off screen.

/** Languages models write most: their grammars are compiled on first use (a few ms each). */
export const WARMUP_LANGUAGES = ['ts', 'tsx', 'js', 'python', 'bash', 'json', 'diff', 'rust', 'go', 'css', 'html', 'yaml', 'sql', 'java', 'c', 'cpp'];

function code(lang: string): string {
  return [
    '```' + lang,
    'const items = load("data/input.txt", { limit: 10 }); // keep the first ten',
    'for (const item of items) print(item.name, item.size * 2);',
    '```',
  ].join('\n');
}

/** An answer with what answers have: headings, emphasis, inline code, links, lists, a table, a quote, code. */
export function warmupAnswer(): string {
  const section = (i: number, lang: string) =>
    [
      `## Step ${i}: what changes`,
      '',
      `Step ${i} reads the input **once**, keeps *only* what it needs and passes \`limit${i}\` on (see [the guide](https://example.com/guide) or https://example.com/docs).`,
      '',
      '- The loader trims each line.',
      '- Errors name the file and the line.',
      '',
      '1. Build.',
      '2. Test ~~twice~~ once.',
      '',
      '> Nothing is written until every check passed.',
      '',
      code(lang),
      '',
      '| Step | Before | After |',
      '| --- | :-- | --: |',
      `| ${i} | ${i * 3} ms | ${i} ms |`,
      '',
    ].join('\n');
  // Every construct a few times (it is the repetition that gets code optimised); the other grammars in short blocks.
  const rich = WARMUP_LANGUAGES.slice(0, 8);
  return [
    'Here is the plan.\n',
    ...rich.map((lang, i) => section(i, lang)),
    ...WARMUP_LANGUAGES.slice(rich.length).map((lang) => code(lang) + '\n'),
    'That is all.',
  ].join('\n');
}

/** Size of each step, in characters: about what a frame brings while an answer streams fast. */
const STEP = 32;

/**
 * The warm-up as small steps: each splits a longer prefix of the answer (parsing its tail, as a
 * streamed frame does) and renders the tail block, and renders a block once it is finished (code
 * highlighted). It is the repetition (some 170 steps) that gets the code optimised, not only compiled.
 */
export function* warmupSteps(render: typeof renderMarkdownNodes = renderMarkdownNodes): Generator<void> {
  const text = warmupAnswer();
  let split: MarkdownSplit | undefined;
  for (let end = STEP; end < text.length + STEP; end += STEP) {
    const previous = split;
    split = splitMarkdown(text.slice(0, end), previous);
    const tail = split.blocks.at(-1)!;
    render(tail.nodes, { highlight: !tail.openFence, components: {} });
    // A block that stopped being the tail renders once more, finished (as the Block memo does).
    const finished = split.blocks.length - 1;
    const before = previous ? previous.blocks.length - 1 : 0;
    for (let i = before; i < finished; i++) render(split.blocks[i]!.nodes, { highlight: true, components: {} });
    yield;
  }
}

/**
 * Run the warm-up in idle periods, a step at a time while the period has time left. Returns a
 * function that stops it (a turn starting warms the same code for real).
 */
export function warmMarkdownWhenIdle(idle: IdleScheduler = browserIdle, steps: Iterator<void> = warmupSteps()): () => void {
  return runWhenIdle(steps, idle);
}
