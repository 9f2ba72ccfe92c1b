import { configureProvider, expect, send, test } from './fixtures/deft';

// Issue 31, Fork: "Fork from here" on a message opens a small dialog (files kept or restored), and the window
// switches to the new session, which holds the conversation up to that turn and says where it came from.
test('Fork from here: a new session with the conversation up to that turn, shown in the sidebar as a fork', async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await page.setViewportSize({ width: 1280, height: 800 });
  await configureProvider(page, mock.baseUrl);
  await send(page, 'First question');
  await expect(page.getByText('Echo: First question')).toBeVisible();
  await send(page, 'Second question');
  await expect(page.getByText('Echo: Second question')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);

  const first = page.getByRole('article', { name: 'Your message' }).filter({ hasText: 'First question' });
  await first.hover();
  await first.getByRole('button', { name: 'Fork from here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Fork from here' });
  await expect(dialog.getByRole('radio', { name: /Keep the files as they are/ })).toBeChecked();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    const body = await page.screenshot({ path: testInfo.outputPath(`fork-dialog-${scheme}.png`), animations: 'disabled' });
    await testInfo.attach(`fork-dialog-${scheme}`, { body, contentType: 'image/png' });
  }
  await dialog.getByRole('button', { name: 'Fork', exact: true }).click();
  await expect(dialog).toHaveCount(0);

  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Echo: First question')).toBeVisible();
  await expect(log.getByText('Second question')).toHaveCount(0);
  await expect(page.getByText('forked from First question · prompt 1')).toBeVisible();
  // The original is still listed, as it was.
  await expect(page.getByRole('button', { name: 'Second question' })).toHaveCount(0);
  await expect(page.locator('.session-row')).toHaveCount(2);
});

test("Fork in a session's right-click menu: a new session with its whole conversation, opened at once", async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'Only question');
  await expect(page.getByText('Echo: Only question')).toBeVisible();
  await send(page, 'Follow-up');
  await expect(page.getByText('Echo: Follow-up')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);

  await page.locator('.session-row').first().click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Fork' }).click();
  await expect(page.locator('.session-row')).toHaveCount(2);
  await expect(page.locator('.session-current')).toContainText('forked from Only question · prompt 2');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Echo: Only question')).toBeVisible();
  await expect(log.getByText('Echo: Follow-up')).toBeVisible();
  // The new session goes on from there.
  await send(page, 'In the fork');
  await expect(log.getByText('Echo: In the fork')).toBeVisible();
});
