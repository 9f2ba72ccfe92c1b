import { longAnswer } from '../test-support/long-answer';
import { textChunks } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Issue 35: the window never hides work and never says two things at once.

test.describe('switching sessions', () => {
  // Sessions no tab shows are let go of almost at once, so every switch back loads one again.
  test.use({ unloadAfterMs: 50 });

  test('is silent in both directions, also when the session switched to was let go of', async ({ deft, mock }) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    await send(page, 'first session');
    await expect(page.getByText('Echo: first session')).toBeVisible();
    await page.getByRole('button', { name: 'New session' }).click();
    await send(page, 'second session');
    await expect(page.getByText('Echo: second session')).toBeVisible();
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    for (let i = 0; i < 2; i++) {
      await page.waitForTimeout(150);
      await sidebar.getByRole('button', { name: /^first session/ }).click();
      await expect(page.getByText('Echo: first session')).toBeVisible();
      await page.waitForTimeout(150);
      await sidebar.getByRole('button', { name: /^second session/ }).click();
      await expect(page.getByText('Echo: second session')).toBeVisible();
    }
    await page.waitForTimeout(300);
    await expect(page.getByRole('alert')).toHaveCount(0);
  });
});

test('sending while scrolled up follows the newest: the prompt shows at once, then its answer', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({ chunks: [{ text: longAnswer(6_000) }, { finish: 'stop' }] });
  await send(page, 'Explain every part');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('That is all: every part is done.')).toBeInViewport();
  await expect(log.getByRole('toolbar', { name: 'Answer actions' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  // The reader scrolls up a little, then sends.
  await log.evaluate((el) => (el.scrollTop -= 400));
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toBeVisible();
  mock.enqueue({ chunks: [...textChunks('The second answer streams in. '.repeat(8), 10), { finish: 'stop' }], delayMs: 40 });
  await send(page, 'And the second question?');
  await expect(log.locator('.user-text', { hasText: 'And the second question?' })).toBeInViewport();
  await expect(log.getByText('The second answer streams in.')).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Jump to latest' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(log.locator('.user-text', { hasText: 'And the second question?' })).toBeVisible();
});
