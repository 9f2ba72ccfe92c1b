import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { answer, call, toolStep, userTexts } from './fixtures/daily';

// Issue 31: the message box stays usable while a turn runs — Enter queues, Ctrl+Enter (or Steer) steers.

test('while a turn waits, messages queue (edited, removed) and a steer lands before its next step; the queue runs next', async ({ deft, mock, workspace }) => {
  // Many small steps through the window (a dozen fills and clicks): more than the default budget on a loaded machine.
  test.slow();
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // The turn's first step asks to write a file: it runs (waiting for the approval) until the user answers.
  mock.enqueue(toolStep(call('Write', { path: 'notes.txt', content: 'hi\n' })), answer('Wrote it with tabs in mind.'), answer('Queued one answered.'));
  await send(page, 'write notes');
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval).toBeVisible();

  const box = page.getByRole('textbox', { name: 'Message' });
  const queue = page.getByRole('region', { name: 'Queued messages' });
  await send(page, 'then run the tests');
  await send(page, 'and update the docs');
  await expect(queue.getByRole('listitem', { name: 'Queued message' })).toHaveCount(2);
  await expect(box).toHaveValue('');

  const first = queue.getByRole('listitem').filter({ hasText: 'then run the tests' });
  await first.getByRole('button', { name: 'Edit' }).click();
  const editor = queue.getByRole('textbox', { name: 'Edit queued message' });
  await editor.fill('then run the unit tests');
  await expect(editor).toHaveValue('then run the unit tests');
  await editor.press('Enter');
  await expect(editor).toBeHidden();
  await expect(queue.getByRole('listitem', { name: 'Queued message' }).first()).toContainText('then run the unit tests');
  await queue.getByRole('listitem').filter({ hasText: 'and update the docs' }).getByRole('button', { name: 'Remove' }).click();
  await expect(queue.getByRole('listitem')).toHaveCount(1);

  await box.fill('use tabs, not spaces');
  await box.press('Control+Enter');
  await expect(queue.getByRole('listitem', { name: 'Steer message' })).toContainText('use tabs, not spaces');

  await approval.getByRole('button', { name: /Approve once/ }).click();
  // The steer is shown where it landed, and the model's next request carried it after the tool's result.
  await expect(page.getByRole('article', { name: 'Your steer' })).toContainText('use tabs, not spaces');
  await expect(page.getByText('Queued one answered.')).toBeVisible();
  expect(userTexts(mock.requests[1]).at(-1)).toBe('use tabs, not spaces');
  expect(userTexts(mock.requests[2]).at(-1)).toBe('then run the unit tests');
  await expect(queue).toBeHidden();
  expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hi\n');
  // Stop still stops; the Steer button shows only while a turn runs.
  await expect(page.getByRole('button', { name: 'Steer' })).toBeHidden();
});
