import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { answer, call, toolStep } from './fixtures/screens';

// Issue 18, items 11 and 12: themes that follow the system with a switch; accessibility details.
const SLOW = { timeout: 30_000 };

test('the theme follows the system until one is chosen; the choice is kept across a restart', async ({ deft, mock, home }) => {
  const { page } = deft;
  await page.emulateMedia({ colorScheme: 'light' });
  await configureProvider(page, mock.baseUrl);
  const html = page.locator('html');
  await expect(html).toHaveAttribute('data-theme', 'light');
  const lightBg = await page.locator('body').evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).backgroundColor);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await page.locator('body').evaluate((b) => b.ownerDocument.defaultView!.getComputedStyle(b).backgroundColor)).not.toBe(lightBg);

  await page.keyboard.press('Control+,');
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('tab', { name: 'Appearance' }).click();
  const theme = page.getByRole('dialog', { name: 'Settings' }).getByRole('group', { name: 'Theme' });
  await expect(theme.getByRole('button', { name: 'System' })).toHaveAttribute('aria-pressed', 'true');
  await theme.getByRole('button', { name: 'Light' }).click();
  await expect(theme.getByRole('button', { name: 'Light' })).toHaveAttribute('aria-pressed', 'true');
  await expect(html).toHaveAttribute('data-theme', 'light');
  await expect.poll(async () => JSON.parse(await readFile(join(home, 'settings.json'), 'utf8')).preferences?.theme).toBe('light');
  await deft.restart();
  await expect(deft.page.locator('html')).toHaveAttribute('data-theme', 'light');
  // The saved theme applies before the window is up; its shortcuts work once the composer is there.
  await expect(deft.page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await deft.page.keyboard.press('Control+,');
  await deft.page.getByRole('dialog', { name: 'Settings' }).getByRole('tab', { name: 'Appearance' }).click();
  await deft.page.getByRole('dialog', { name: 'Settings' }).getByRole('group', { name: 'Theme' }).getByRole('button', { name: 'System' }).click();
  await expect(deft.page.locator('html')).toHaveAttribute('data-theme', 'dark');
});

test('accessibility details: tool cards are groups, presets say aria-pressed, Ctrl+, lands in the first field, Ctrl+/ lists the shortcuts', async ({
  deft,
  mock,
}) => {
  const { page } = deft;
  await expect(page.getByRole('group', { name: 'Start from a preset' }).getByRole('button', { name: 'OpenAI' })).toHaveAttribute('aria-pressed', 'false');
  await page.getByRole('button', { name: 'OpenAI' }).click();
  await expect(page.getByRole('button', { name: 'OpenAI' })).toHaveAttribute('aria-pressed', 'true');
  await configureProvider(page, mock.baseUrl);
  await page.getByLabel('Permission mode').selectOption('yolo');
  mock.enqueue(toolStep(call('Glob', { pattern: '*' }), call('Bash', { command: 'echo hi' })), answer('Looked around.'));
  await send(page, 'Look around');
  await expect(page.getByText('Looked around.')).toBeVisible(SLOW);
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByRole('group', { name: 'Glob tool call' })).toBeVisible();
  await expect(log.getByRole('group', { name: 'Bash tool call' })).toBeVisible();
  await expect(log.getByRole('region')).toHaveCount(0);

  await page.keyboard.press('Control+,');
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await expect(settings.getByLabel('Base URL')).toBeFocused();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(sheet).toContainText('Show or hide the sidebar');
  await expect(sheet).toContainText('Approve for this session');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
});
