import { textChunks } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Web host only (the Electron project ignores this file): a browser page has a connection to lose.
test('the web page reconnects by itself after the host dies, and catches up', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'before the crash');
  await expect(page.getByText('Echo: before the crash')).toBeVisible();
  mock.enqueue({ chunks: [...textChunks('this answer never finishes '.repeat(100), 5), { finish: 'stop' }], delayMs: 30 });
  await send(page, 'during the crash');
  await expect(page.getByRole('article', { name: 'Assistant message' }).last()).toContainText('this answer never finishes');
  await deft.crashAndRecover();
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Deft stopped while this turn was running')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('during the crash')).toBeVisible();
  await expect(page.getByText('Lost the connection to Deft')).toBeHidden();
  await send(page, 'after the crash');
  await expect(page.getByText('Echo: after the crash')).toBeVisible();
});

// Security review finding 12: the token must not stay in the address bar or the history.
test('the token leaves the address bar once the page has it, and a reload still connects', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  expect(page.url()).not.toContain('token=');
  expect(new URL(page.url()).hash).toBe('');
  await page.reload();
  await send(page, 'after a reload');
  await expect(page.getByText('Echo: after a reload')).toBeVisible();
  expect(page.url()).not.toContain('token=');
});
