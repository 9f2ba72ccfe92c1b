import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, test } from './fixtures/deft';
import { SIZES, expectInView } from './fixtures/daily';

// Issue 18 item 4: the first run at every window size.

for (const size of SIZES) {
  test(`first run at ${size.width}×${size.height}: the start button is in view, presets say which is chosen, placeholders are examples`, async ({ deft }) => {
    const { page } = deft;
    await page.setViewportSize(size);
    await expect(page.getByRole('heading', { name: 'Connect a model to get started' })).toBeVisible();
    const start = page.getByRole('button', { name: 'Start using Deft' });
    await expectInView(page, start);
    await expectInView(page, page.getByRole('button', { name: 'Test connection' }));
    // Placeholders are marked as examples; nothing is filled in for the user.
    await expect(page.getByLabel('Base URL')).toHaveValue('');
    await expect(page.getByLabel('Base URL')).toHaveAttribute('placeholder', /^e\.g\. /);
    await expect(page.getByLabel('Model', { exact: true })).toHaveAttribute('placeholder', /^e\.g\. /);
    // Protocol, images and the context window wait under Advanced.
    await expect(page.getByLabel('Protocol')).toBeHidden();
    await expect(page.getByLabel('Context window (tokens)')).toBeHidden();
    const presets = page.getByRole('group', { name: 'Start from a preset' });
    await expect(presets.getByRole('button', { pressed: true })).toHaveCount(0);
    await presets.getByRole('button', { name: 'Ollama (local)' }).click();
    await expect(presets.getByRole('button', { name: 'Ollama (local)' })).toHaveAttribute('aria-pressed', 'true');
    await expect(page.getByLabel('Base URL')).toHaveValue('http://127.0.0.1:11434/v1');
    await page.getByText('Advanced: protocol, images, context window').click();
    await expect(page.getByLabel('Protocol')).toBeVisible();
    // With the form open to its longest, the buttons are still in view (only the form scrolls).
    await expectInView(page, start);
  });
}

test('Fetch models works without a model name and shows the list in view; picking one fills the field', async ({ deft, mock }) => {
  const { page } = deft;
  await page.setViewportSize({ width: 900, height: 700 });
  await page.getByLabel('Base URL').fill(mock.baseUrl);
  await page.getByRole('button', { name: 'Fetch models' }).click();
  const list = page.getByRole('group', { name: /2 models on this server/ });
  await expectInView(page, list);
  await list.getByRole('button', { name: 'mock-model-large' }).click();
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('mock-model-large');
  await expect(list).toBeHidden();
  // Without a base URL it says what is missing instead of failing silently.
  await page.getByLabel('Base URL').fill('');
  await page.getByRole('button', { name: 'Fetch models' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter the base URL first: the model list comes from that server.');
  // The message goes as soon as the field it is about changes.
  await page.getByLabel('Base URL').fill('http://127.0.0.1:1/v1');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('Test connection sends one tiny request and reports success, or the exact problem, without saving', async ({ deft, mock }) => {
  const { page } = deft;
  await page.getByLabel('Base URL').fill(mock.baseUrl);
  await page.getByLabel('Model', { exact: true }).fill('mock-model');
  await page.getByLabel('API key').fill('sk-wrong');
  mock.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) });
  await page.getByRole('button', { name: 'Test connection' }).click();
  // The result is beside the button that asked for it, and a rejected key points at the field above (no Settings here).
  const status = page.locator('.first-run-footer').getByRole('alert');
  await expect(status).toContainText('Incorrect API key provided');
  await expect(status).toContainText('Check the API key above.');
  await expect(status).not.toContainText('Settings');
  expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-wrong');

  mock.enqueue({ chunks: [{ text: 'OK' }, { finish: 'stop' }] });
  await page.getByLabel('API key').fill('sk-right');
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Connected' })).toContainText(/Connected: mock-model answered in [\d,]+ ms and replied “OK”\./);
  expect(mock.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'OK?' });
  // Nothing was saved: the first run is still showing until Start.
  await expect(page.getByRole('heading', { name: 'Connect a model to get started' })).toBeVisible();
  await page.getByRole('button', { name: 'Start using Deft' }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
});

test('Save in Settings tests the connection first; when it fails, nothing is saved until Save anyway', async ({ deft, mock, home }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('Model', { exact: true }).fill('mock-model-large');
  await dialog.getByLabel('API key').fill('sk-wrong');
  mock.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) });
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  const actions = dialog.locator('.settings-actions');
  await expect(actions.getByRole('alert')).toContainText('Check the API key above.');
  expect(mock.requests.at(-1)!.headers.authorization).toBe('Bearer sk-wrong');
  const settings = () => readFile(join(home, 'settings.json'), 'utf8');
  expect(await settings()).not.toContain('mock-model-large');
  await actions.getByRole('button', { name: 'Save anyway' }).click();
  await expect(actions.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  expect(await settings()).toContain('mock-model-large');
  // Changing a field takes the offer back: it was about the values tested.
  await dialog.getByLabel('API key').fill('sk-right');
  await expect(actions.getByRole('button', { name: 'Save anyway' })).toHaveCount(0);
});
