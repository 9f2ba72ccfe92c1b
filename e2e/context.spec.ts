import type { MockChunk, RecordedRequest } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Long sessions: /compact (a handoff note replaces what the model reads) and /undo (take back turns).

const call = (name: string, args: unknown): MockChunk => ({ toolCall: { name, args: JSON.stringify(args) } });
const toolStep = (...calls: MockChunk[]) => ({ chunks: [...calls, { finish: 'tool_calls' as const }] });
const answer = (text: string, delayMs = 0) => ({ chunks: [{ text }, { finish: 'stop' as const }], ...(delayMs ? { delayMs } : {}) });
/** What the user said, in a request: its user messages without the fact reminders (a handoff note stays). */
const userTexts = (request: RecordedRequest | undefined) =>
  (request?.body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => String(m.content))
    .filter((text) => !text.startsWith('<system-reminder>\n') || text.includes('<handoff-note>'));

test('/compact shows a notice with the handoff note, and the next answer still works', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'Rename the parser module');
  await expect(page.getByText('Echo: Rename the parser module')).toBeVisible();

  // The note comes slowly, so the running state can be seen.
  mock.enqueue(answer('I was asked to rename the parser module; nothing is changed yet.', 1500));
  await send(page, '/compact keep the module names');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  await expect(page.getByText(/Compacting the conversation… Deft is writing itself a handoff note/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();

  const notice = page.getByRole('group', { name: 'Context compacted' });
  await expect(notice).toBeVisible({ timeout: 20_000 });
  await expect(notice).toContainText(/~[\d.]+k? → ~[\d.]+k? tokens/);
  await notice.getByRole('button', { name: /View note/ }).click();
  await expect(notice).toContainText('I was asked to rename the parser module; nothing is changed yet.');
  await expect(notice).toContainText('your last message (verbatim)');
  expect(userTexts(mock.requests.at(-1)).at(-1)).toContain('keep the module names');

  await send(page, 'Go ahead');
  await expect(page.getByText('Echo: Go ahead')).toBeVisible();
  const after = userTexts(mock.requests.at(-1));
  expect(after[0]).toBe('Rename the parser module');
  expect(after[1]).toContain('<handoff-note>\nI was asked to rename the parser module; nothing is changed yet.\n</handoff-note>');
  expect(after.at(-1)).toBe('Go ahead');
  // The transcript keeps the whole conversation.
  await expect(page.getByText('Echo: Rename the parser module')).toBeVisible();
});

test('/undo greys the last turn, rolls the todo panel back, and the model no longer reads it', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    toolStep(
      call('TodoList', {
        todos: [
          { title: 'Read the code', status: 'in_progress' },
          { title: 'Fix the bug', status: 'pending' },
        ],
      }),
    ),
    answer('Started.'),
  );
  await send(page, 'First step');
  const panel = page.getByRole('region', { name: 'Todo list' });
  await expect(panel).toContainText('0/2 done');
  await expect(page.getByText('Started.')).toBeVisible();

  mock.enqueue(
    toolStep(
      call('TodoList', {
        todos: [
          { title: 'Read the code', status: 'done' },
          { title: 'Fix the bug', status: 'in_progress' },
        ],
      }),
    ),
    answer('Halfway there.'),
  );
  await send(page, 'Second step');
  await expect(panel).toContainText('1/2 done');
  await expect(page.getByText('Halfway there.')).toBeVisible();

  await send(page, '/undo');
  await expect(page.getByText(/Undid the last turn: Deft no longer reads it.*Files changed in that turn were not restored\./)).toBeVisible();
  await expect(panel).toContainText('0/2 done');
  await expect(panel.locator('[aria-current="step"]')).toHaveText(/Read the code/);
  const undone = page.locator('.row-undone');
  await expect(undone.filter({ hasText: 'Second step' })).toContainText('Undone');
  await expect(undone.filter({ hasText: 'Halfway there.' }).locator('article')).toHaveCSS('opacity', '0.45');
  await expect(page.locator('.row:not(.row-undone)').filter({ hasText: 'First step' })).toHaveCount(1);

  await send(page, 'Try again');
  await expect(page.getByText('Echo: Try again')).toBeVisible();
  expect(userTexts(mock.requests.at(-1))).toEqual(['First step', 'Try again']);

  // Persisted: after a reload the turn is still marked and the list still rolled back.
  await page.reload();
  await expect(page.locator('.row-undone').filter({ hasText: 'Second step' })).toContainText('Undone');
  await expect(page.getByRole('region', { name: 'Todo list' })).toContainText('0/2 done');

  // Undo of more turns than there are is refused with a clear message.
  await send(page, '/undo 5');
  await expect(page.getByText('Only 2 turns can be undone. Use /undo 2.')).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('/undo 5');
});
