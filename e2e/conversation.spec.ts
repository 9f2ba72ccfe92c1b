import { basename } from 'node:path';
import { textChunks } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

test('first run: configure a model, stream an answer, and keep it across a reload and a restart', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({ chunks: [{ thinking: 'Planning the reply.' }, ...textChunks('Hello! I can **see** your workspace.', 3), { finish: 'stop' }], delayMs: 10 });
  await send(page, 'Hello Deft');

  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Hello Deft')).toBeVisible();
  await expect(log.getByRole('article', { name: 'Assistant message' })).toContainText('Hello! I can see your workspace.');
  await expect(log.locator('strong', { hasText: 'see' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  expect(mock.requests[0]!.headers.authorization).toBe('Bearer sk-e2e');

  await page.reload();
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Hello! I can see your workspace.')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByText('Hello Deft')).toBeVisible();

  await deft.restart();
  await expect(deft.page.getByRole('log', { name: 'Conversation' }).getByText('Hello! I can see your workspace.')).toBeVisible();
  mock.enqueue({ chunks: [{ text: 'Still here.' }, { finish: 'stop' }] });
  await send(deft.page, 'And now?');
  await expect(deft.page.getByText('Still here.')).toBeVisible();
  // The conversation carried over (the facts of the first turn's reminder are not said again).
  const resumed = mock.requests.at(-1)!.body.messages.filter((m) => !String(m.content).startsWith('<system-reminder>\n'));
  expect(resumed.map((m) => [m.role, m.role === 'system' ? '' : String(m.content)])).toEqual([
    ['system', ''],
    ['user', 'Hello Deft'],
    ['assistant', 'Hello! I can **see** your workspace.'],
    ['user', 'And now?'],
  ]);
  expect(mock.requests.at(-1)!.body.messages.filter((m) => String(m.content).startsWith('<system-reminder>\n'))).toHaveLength(1);
});

test('the Stop button cancels a long stream', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({ chunks: [...textChunks('streaming forever '.repeat(200), 6), { finish: 'stop' }], delayMs: 25 });
  await send(page, 'Write a lot');
  await expect(page.getByRole('article', { name: 'Assistant message' })).toContainText('streaming forever');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped.' })).toBeVisible({ timeout: 3_000 });
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  const shown = await page.getByRole('article', { name: 'Assistant message' }).innerText();
  expect(shown.length).toBeLessThan('streaming forever '.repeat(200).length);
});

test('a rejected API key shows a banner that leads to Settings', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({ status: 401, body: '{"error":{"message":"Incorrect API key provided"}}' });
  await send(page, 'hi');
  const banner = page.getByRole('alert').filter({ hasText: 'The API key was rejected' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('Incorrect API key provided');
  await banner.getByRole('button', { name: 'Open Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Base URL')).toHaveValue(mock.baseUrl);
  await dialog.getByLabel('API key').fill('sk-better');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(dialog.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  mock.enqueue({ chunks: [{ text: 'Welcome back.' }, { finish: 'stop' }] });
  await send(page, 'retry');
  await expect(page.getByText('Welcome back.')).toBeVisible();
  expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-better');
});

test('sessions: new, switch and delete from the sidebar, with keyboard shortcuts', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // The web host cannot switch folders: the workspace is shown, not offered as a button that does nothing.
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByText(basename(workspace))).toBeVisible();
  await expect(page.getByRole('button', { name: basename(workspace) })).toHaveCount(0);
  await send(page, 'first session prompt');
  await expect(page.getByText('Echo: first session prompt')).toBeVisible();
  await page.keyboard.press('Control+n');
  await expect(page.getByRole('heading', { name: 'What should we work on?' })).toBeVisible();
  await send(page, 'second session prompt');
  await expect(page.getByText('Echo: second session prompt')).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  await sidebar.getByRole('button', { name: /^first session prompt/ }).click();
  await expect(page.getByText('Echo: first session prompt')).toBeVisible();
  await sidebar.getByRole('button', { name: 'Actions for second session prompt' }).click();
  await page.getByRole('menu', { name: 'Actions for second session prompt' }).getByRole('menuitem', { name: 'Delete' }).click();
  await page.getByRole('menu', { name: 'Actions for second session prompt' }).getByRole('menuitem', { name: 'Confirm delete' }).click();
  await expect(sidebar.getByText('second session prompt')).toBeHidden();
  await page.keyboard.press('Control+,');
  await expect(page.getByRole('dialog', { name: 'Settings' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Settings' })).toBeHidden();
});
