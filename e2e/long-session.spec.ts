import { appendFile, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { textChunks } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Issue 19: a long session opens at its tail; earlier turns load as the user scrolls up, in order and
// each once, also while a turn streams.

const TURNS = 45;
const LIVE = 'The live answer arrives in many small pieces while you read the history. ';

/** The session the UI made, grown to TURNS more turns written the way Deft writes them. */
async function growSession(home: string): Promise<void> {
  const root = join(home, 'sessions');
  const [workspaceDir] = await readdir(root);
  const [sessionId] = await readdir(join(root, workspaceDir!));
  const dir = join(root, workspaceDir!, sessionId!);
  const log = await readFile(join(dir, 'log.jsonl'), 'utf8');
  let seq = Math.max(
    ...log
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { e?: { seq: number } }).e?.seq ?? 0),
  );
  const lines: string[] = [];
  const event = (e: Record<string, unknown>) => lines.push(JSON.stringify({ r: 'event', e: { ...e, sessionId, seq: ++seq, at: 1_700_000_000_000 + seq } }));
  for (let n = 1; n <= TURNS; n++) {
    const turnId = `turn-old-${n}`;
    event({ type: 'turn.started', turnId, text: `Question ${n}`, attachments: [], origin: 'user' });
    lines.push(JSON.stringify({ r: 'context', m: { role: 'user', content: `Question ${n}`, turnId } }));
    event({ type: 'step.started', turnId, step: 1 });
    event({ type: 'assistant.delta', turnId, step: 1, text: `Answer ${n}.\n\n${'A line of the answer.\n\n'.repeat(n % 3)}` });
    event({ type: 'step.ended', turnId, step: 1, finishReason: 'end_turn' });
    lines.push(JSON.stringify({ r: 'context', m: { role: 'assistant', content: `Answer ${n}.` } }));
    // State the turns before the tail leave (openSession's compacted `earlier`): usage, context fill, todo lists.
    if (n <= 30) {
      event({
        type: 'usage',
        turnId,
        step: { inputTokens: 1000 * n, outputTokens: 10 },
        total: { inputTokens: 0, outputTokens: 0 },
        model: n % 2 ? 'model-a' : 'model-b',
      });
      event({
        type: 'context.measured',
        turnId,
        tokens: 1000 * n,
        contextWindow: 128_000,
        compactAt: 0.85,
        breakdown: { system: 100, tools: 100, conversation: 1000 * n - 300, toolResults: 100 },
      });
    }
    if (n === 10) event({ type: 'todo.updated', items: [{ title: 'An old plan', status: 'in_progress' }] });
    if (n === 20)
      event({
        type: 'todo.updated',
        items: [
          { title: 'Read the history', status: 'done' },
          { title: 'Answer the question', status: 'in_progress' },
        ],
      });
    event({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 10 });
  }
  await appendFile(join(dir, 'log.jsonl'), lines.join('\n') + '\n');
  const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as { turns: number };
  await writeFile(join(dir, 'meta.json'), JSON.stringify({ ...meta, turns: meta.turns + TURNS }));
}

/** Every prompt in the conversation, top to bottom, read by scrolling down through the virtualised list. */
async function promptsTopToBottom(scroll: Locator): Promise<string[]> {
  const seen = new Map<number, string>();
  await scroll.evaluate((el) => (el.scrollTop = 0));
  for (;;) {
    // The list renders the rows of a new scroll position on a later frame: read them once two frames have passed.
    await scroll.evaluate(
      (el) => new Promise((resolve) => el.ownerDocument.defaultView!.requestAnimationFrame(() => el.ownerDocument.defaultView!.requestAnimationFrame(resolve))),
    );
    const rows = await scroll
      .locator('.row')
      .evaluateAll((els) =>
        els.map((el) => ({ index: Number(el.getAttribute('data-index')), prompt: el.querySelector('.user-text')?.textContent?.trim() ?? null })),
      );
    for (const row of rows) if (row.prompt !== null) seen.set(row.index, row.prompt);
    const done = await scroll.evaluate((el) => {
      const end = el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
      el.scrollTop += el.clientHeight * 0.5;
      return end;
    });
    if (done) break;
  }
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, prompt]) => prompt);
}

test('a long session opens at its tail and loads earlier turns on scrolling up, in order and once, while a turn streams', async ({ deft, mock, home }) => {
  // A restart, three pages and a walk through the whole conversation: more steps than most specs.
  test.slow();
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'first prompt');
  await expect(page.getByText('Echo: first prompt')).toBeVisible();
  await growSession(home);
  await deft.restart();

  const scroll = page.getByRole('log', { name: 'Conversation' });
  await expect(page.getByText(`Answer ${TURNS}.`)).toBeVisible();
  // Only the tail is in the window at first.
  await expect(scroll.locator('.user-text', { hasText: /^Question 1$/ })).toHaveCount(0);
  // The state the earlier turns left is there at once: the last todo list and the last context measurement.
  const todo = page.getByRole('region', { name: 'Todo list' });
  await expect(todo).toContainText('1/2 done');
  await expect(todo.locator('[aria-current="step"]')).toHaveText(/Answer the question/);
  await expect(page.getByRole('button', { name: /^Context: 30k of 128k tokens/ })).toBeVisible();

  // A turn streams while the user scrolls up.
  mock.enqueue({ chunks: [...textChunks(LIVE.repeat(6), 8), { finish: 'stop' }], delayMs: 50 });
  await send(page, 'live prompt');
  await expect(page.getByText('The live answer arrives')).toBeVisible();
  const first = scroll.locator('.user-text', { hasText: /^first prompt$/ });
  for (let i = 0; i < 20 && !(await first.isVisible()); i++) {
    await scroll.evaluate((el) => (el.scrollTop = 0));
    // Each trip to the top asks for one page; when it is on top, the rows on screen stay where they were (below it).
    await expect.poll(async () => (await first.isVisible()) || (await scroll.evaluate((el) => el.scrollTop > 0))).toBe(true);
  }
  await expect(first).toBeVisible();
  await expect(page.getByRole('button', { name: 'Load earlier messages' })).toHaveCount(0);

  const prompts = await promptsTopToBottom(scroll);
  expect(prompts).toEqual(['first prompt', ...Array.from({ length: TURNS }, (_, i) => `Question ${i + 1}`), 'live prompt']);
  // The streamed answer is whole at the bottom: no delta was lost to the pages put on top meanwhile.
  await expect(page.getByText(LIVE.repeat(6).trim())).toBeVisible();
});
