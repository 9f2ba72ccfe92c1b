import type { ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import type { ToolInputDisplay, ToolResultDisplay } from '#protocol';
import type { AssistantItem, NoticeItem, ToolItem, TranscriptItem, UserItem } from '../../stores/transcript';
import { highlightLines, languageFor } from '../files/highlight';
import { renderResult, resultRenderers } from '../tools/registry';
import { TranscriptRow } from './Conversation';

// The first long session a window opened was the slowest to show (issue 36): its first render of
// messages and tool cards (React's render and commit of each card kind, a diff's highlighting with the
// file views' own highlighter, the virtualizer's measuring) ran that code for the first time, lazily
// compiled and unoptimised, and the style and layout of those elements were new to the page too — the
// page's CPU for that open was two to three times a later open's. So, once, when the window is idle,
// a small transcript like a coding session's is rendered off screen, a row at a time, as the
// conversation renders its rows, and measured as the virtualizer measures them; each row is gone
// before the step ends, and nothing is written to a store.

/** Languages of the files a session reads and edits most: the file views compile a grammar on its first use. */
export const WARMUP_FILE_LANGUAGES = ['a.ts', 'a.tsx', 'a.js', 'a.py', 'a.sh', 'a.json', 'a.md', 'a.css', 'a.html', 'a.yaml', 'a.rs', 'a.go'];

const TURN = 'warmup-turn';

/** A source file of `lines` lines, as Read shows it. */
function source(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `export const value${i} = compute(${i}, 'part ${i}'); // line ${i + 1}`).join('\n');
}

/** A test run's output, `lines` long: what a command card holds most often. */
function testOutput(lines: number): string {
  return Array.from({ length: lines }, (_, i) =>
    i % 20 === 0 ? ` ✓ src/module-${i}.test.ts (12 tests) ${(i * 7) % 900} ms` : `   ✓ case ${i}: keeps the order of rows when the index is rebuilt`,
  ).join('\n');
}

function tool(id: string, name: string, display: ToolInputDisplay, result: { output: string; display?: ToolResultDisplay; isError?: boolean }): ToolItem {
  return {
    kind: 'tool',
    id: `warmup-${id}`,
    turnId: TURN,
    name,
    args: {},
    description: name,
    display,
    status: result.isError ? 'error' : 'done',
    progress: '',
    startedAt: 0,
    result: { output: result.output, isError: result.isError ?? false, display: result.display, durationMs: 12 },
  };
}

/** A diff of `lines` changed lines among context, as Edit and Write show it (open by default). */
function diff(path: string, lines: number): Extract<ToolResultDisplay, { kind: 'diff' }> {
  const body: string[] = [];
  for (let i = 0; i < lines; i++) body.push(` const kept${i} = read(${i});`, `-export const rate${i} = ${i};`, `+export const rate${i} = ${i + 1}; // changed`);
  return { kind: 'diff', path, hunks: [{ oldStart: 1, oldLines: lines * 2, newStart: 1, newLines: lines * 2, lines: body }], added: lines, removed: lines };
}

/**
 * The rows of a short coding session: a prompt, answers with Markdown and code, and a card of each kind a
 * session shows most (a command with long output, closed and failed-open, a read, an edit, a search, a
 * listing, a fetch's text), plus a notice. Fresh objects each call (memoised components render them anew).
 */
export function warmupRows(): TranscriptItem[] {
  const user: UserItem = {
    kind: 'user',
    id: 'warmup-user',
    turnId: TURN,
    text: 'Why do the tests fail after the rename? Fix `src/rates.ts` and run them again.',
    attachments: [],
    mentions: [],
    at: 0,
    seq: 0,
  };
  const answer = (step: number, text: string): AssistantItem => ({
    kind: 'assistant',
    id: `warmup-answer-${step}`,
    turnId: TURN,
    step,
    text,
    thinking: '',
    streaming: false,
    at: 0,
  });
  const read = tool(
    'read',
    'Read',
    { kind: 'file_io', operation: 'read', path: 'src/rates.ts' },
    {
      output: source(70),
      display: { kind: 'file_content', path: 'src/rates.ts', content: source(70), range: { start: 1, end: 70 }, totalLines: 70 },
    },
  );
  const command = (id: string, exitCode: number) =>
    tool(
      id,
      'Bash',
      { kind: 'command', command: 'npm test', description: 'Run the tests', sandboxed: true },
      {
        output: testOutput(400),
        display: { kind: 'command_output', exitCode, output: testOutput(400), stderrLines: exitCode ? [[380, 400]] : undefined },
        isError: exitCode !== 0,
      },
    );
  const notice: NoticeItem = { kind: 'notice', id: 'warmup-notice', turnId: TURN, level: 'info', text: 'Stopped.' };
  return [
    user,
    answer(1, 'The rename left one import behind. Reading the file first.'),
    read,
    tool('edit', 'Edit', { kind: 'file_io', operation: 'edit', path: 'src/rates.ts' }, { output: 'Edited src/rates.ts', display: diff('src/rates.ts', 8) }),
    command('failed', 1),
    command('passed', 0),
    tool(
      'grep',
      'Grep',
      { kind: 'search', query: 'rate\\d', scope: 'src' },
      {
        output: '',
        display: {
          kind: 'search_results',
          query: 'rate\\d',
          matches: Array.from({ length: 20 }, (_, i) => ({ file: `src/part${i % 4}.ts`, line: i + 1, text: `export const rate${i} = ${i};` })),
        },
      },
    ),
    tool(
      'glob',
      'Glob',
      { kind: 'file_io', operation: 'glob', path: 'src/**/*.ts' },
      {
        output: '',
        display: { kind: 'file_list', files: Array.from({ length: 20 }, (_, i) => `src/part${i}.ts`) },
      },
    ),
    tool(
      'text',
      'FetchURL',
      { kind: 'generic', summary: 'Fetch the docs', detail: 'https://example.com/docs' },
      { output: testOutput(60), display: { kind: 'text', text: testOutput(60) } },
    ),
    answer(
      2,
      [
        '## What changed',
        '',
        'The loader reads **each** rate once; `rate0` is *kept* (see [the guide](https://example.com/guide)).',
        '',
        '- Tests: 400 passed.',
        '- Build: clean.',
        '',
        '```ts',
        'export function rate(i: number): number {',
        '  return i + 1; // changed',
        '}',
        '```',
        '',
        '| File | Lines |',
        '| --- | --: |',
        '| src/rates.ts | 8 |',
      ].join('\n'),
    ),
    notice,
  ];
}

/** An off-screen stand-in for the conversation's list (the same classes, so the same styles apply), out of the accessibility tree. */
function offscreenList(document: Document): { host: HTMLElement; row: HTMLElement } {
  const host = document.createElement('div');
  host.setAttribute('aria-hidden', 'true');
  host.inert = true;
  host.className = 'conversation-frame';
  host.style.cssText = 'position:fixed;left:-20000px;top:0;width:900px;height:800px;visibility:hidden;pointer-events:none';
  const scroll = host.appendChild(document.createElement('div'));
  scroll.className = 'conversation-scroll';
  const inner = scroll.appendChild(document.createElement('div'));
  inner.className = 'conversation-inner';
  const row = inner.appendChild(document.createElement('div'));
  row.className = 'row';
  return { host, row };
}

/** Render `node` off screen, lay it out as the virtualizer measures a row, and take it all away again. */
function renderOnce(document: Document, node: ReactNode): void {
  const { host, row } = offscreenList(document);
  document.body.appendChild(host);
  const root = createRoot(row);
  try {
    flushSync(() => root.render(node));
    row.getBoundingClientRect();
  } finally {
    root.unmount();
    host.remove();
  }
}

/**
 * The warm-up as small steps: each renders one row (or, for cards that start closed, the body a click
 * opens), or highlights a snippet in one more language. `rounds` times over, since it is the repetition
 * that gets code optimised, not only compiled.
 */
export function* transcriptWarmupSteps(rounds = 3, document: Document = globalThis.document): Generator<void> {
  for (const file of WARMUP_FILE_LANGUAGES) {
    highlightLines('const items = load("data/input.txt", { limit: 10 }); // first ten\nfor (const item of items) print(item.name);', languageFor(file));
    yield;
  }
  for (let round = 0; round < rounds; round++) {
    for (const item of warmupRows()) {
      renderOnce(document, <TranscriptRow item={item} />);
      yield;
      // A card that starts closed: the body it shows when opened.
      const shown = item.kind === 'tool' && item.status === 'done' ? item.result : undefined;
      if (shown?.display && shown.display.kind !== 'diff' && resultRenderers[shown.display.kind]) {
        renderOnce(
          document,
          <section className="tool-card tool-done">
            <div className="tool-body">{renderResult(shown.display, shown.output)}</div>
          </section>,
        );
        yield;
      }
    }
  }
}
