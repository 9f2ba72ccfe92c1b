import { configureProvider, expect, send, test } from './fixtures/deft';
import { answer } from './fixtures/screens';
import { userTexts } from './fixtures/daily';

// Issue 18, item 5: message toolbars, timestamps, and a provider error shown once with Retry and Open Settings.
const SLOW = { timeout: 30_000 };

test('your messages and the answers have Copy, Retry (and Edit & resend) and the time on hover', async ({ deft, mock, context }) => {
  const { page } = deft;
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(answer('First answer.'), answer('Second answer.'), answer('Answer to the edit.'));
  await send(page, 'Tell me something');
  await expect(page.getByText('First answer.')).toBeVisible(SLOW);

  const mine = page.getByRole('article', { name: 'Your message' });
  const toolbar = mine.getByRole('toolbar', { name: 'Message actions' });
  await expect(toolbar).toHaveCSS('opacity', '0');
  await mine.hover();
  await expect(toolbar).toHaveCSS('opacity', '1');
  await expect(toolbar.locator('time')).toHaveText(/\d{2}:\d{2}/);
  await toolbar.getByRole('button', { name: 'Copy' }).click();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe('Tell me something');

  // Retry on the answer: the same prompt again, without typing it; the model reads it once.
  const reply = page.getByRole('article', { name: 'Assistant message' });
  await reply.hover();
  await reply.getByRole('toolbar', { name: 'Answer actions' }).getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByText('Second answer.')).toBeVisible(SLOW);
  const users = userTexts(mock.requests.at(-1));
  expect(users).toEqual(['Tell me something']);

  // Edit & resend, in place.
  const latest = page.getByRole('article', { name: 'Your message' }).last();
  await latest.hover();
  await latest.getByRole('button', { name: 'Edit this message' }).click();
  const editor = page.getByRole('textbox', { name: 'Edit your message' });
  await expect(editor).toHaveValue('Tell me something');
  await editor.fill('Tell me something else');
  await editor.press('Enter');
  await expect(page.getByText('Answer to the edit.')).toBeVisible(SLOW);
  expect(userTexts(mock.requests.at(-1))).toEqual(['Tell me something else']);
});

test('a provider error is shown once, where it happened, with Retry and Open Settings; Retry needs no retyping', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({ status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' });
  await send(page, 'Summarise the README');
  const error = page.getByRole('alert').filter({ hasText: 'The API key was rejected' });
  await expect(error).toBeVisible(SLOW);
  await expect(page.getByText('Incorrect API key provided')).toHaveCount(1);
  await expect(page.getByRole('alert')).toHaveCount(1);
  await error.getByRole('button', { name: 'Open Settings' }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByLabel('API key').fill('sk-better');
  await settings.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(settings.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  mock.enqueue(answer('Here is the summary.'));
  await error.getByRole('button', { name: 'Retry' }).click();
  await expect(page.getByText('Here is the summary.')).toBeVisible(SLOW);
  expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-better');
  expect(userTexts(mock.requests.at(-1))).toEqual(['Summarise the README']);
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
});
