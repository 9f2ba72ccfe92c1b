import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { expect, send, test } from './fixtures/deft';
import { answer, call, toolStep } from './fixtures/daily';

// Screenshots of the daily-use screens (issue 18 items 4, 7–10) at three window sizes, attached to the
// report; with DEFT_SHOTS_DIR set they are also written there to be looked at.

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
  { width: 900, height: 700 },
];

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const body = await page.screenshot();
  await testInfo.attach(name, { body, contentType: 'image/png' });
  const dir = process.env.DEFT_SHOTS_DIR;
  if (dir) {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.png`), body);
  }
}

for (const size of SIZES) {
  test(`daily screens at ${size.width}×${size.height}`, async ({ deft, mock, workspace }, testInfo) => {
    test.setTimeout(180_000);
    const { page } = deft;
    const tag = `${size.width}x${size.height}`;
    await page.setViewportSize(size);
    await mkdir(join(workspace, 'src/components'), { recursive: true });
    await writeFile(join(workspace, 'src/money.js'), 'export function add(a, b) {\n  return Math.round((a + b) * 100) / 100;\n}\n\nexport const currency = "EUR";\n');
    await writeFile(join(workspace, 'src/components/MoneyInput.tsx'), 'export const MoneyInput = () => null;\n');
    await writeFile(join(workspace, 'package.json'), JSON.stringify({ scripts: { test: 'echo ok' } }));

    // First run, with the models fetched and the connection tested.
    await expect(page.getByRole('heading', { name: 'Connect a model to get started' })).toBeVisible();
    await shot(page, testInfo, `first-run-${tag}`);
    await page.getByLabel('Base URL').fill(mock.baseUrl);
    await page.getByRole('button', { name: 'Fetch models' }).click();
    await page.getByRole('group', { name: /models on this server/ }).getByRole('button', { name: 'mock-model', exact: true }).click();
    mock.enqueue(answer('OK'));
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect(page.getByText(/Connected: mock-model/)).toBeVisible();
    await shot(page, testInfo, `first-run-tested-${tag}`);
    await page.getByRole('button', { name: 'Start using Deft' }).click();

    // The composer: the @ picker, a chip, the slash menu, the model chip.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.pressSequentially('Check @money');
    await expect(page.getByRole('listbox', { name: 'Workspace files' }).getByRole('option').first()).toBeVisible();
    await shot(page, testInfo, `composer-mention-picker-${tag}`);
    await box.press('Enter');
    await box.pressSequentially('for rounding bugs');
    await shot(page, testInfo, `composer-mention-chip-${tag}`);

    // A conversation with the daily cards: Read, Edit, Grep, question answers.
    const questions = [{ question: 'Round half to even?', header: 'Rounding', options: [{ label: 'Yes', description: "Banker's rounding" }, { label: 'No' }] }];
    mock.enqueue(
      toolStep(call('Read', { path: 'src/money.js' }), call('Grep', { pattern: 'Math.round', output_mode: 'content' })),
      toolStep(call('AskUserQuestion', { questions })),
      toolStep(call('Edit', { path: 'src/money.js', old_string: 'Math.round((a + b) * 100) / 100', new_string: 'roundHalfEven(a + b, 2)' })),
      answer('I switched `add` to half-to-even rounding.'),
    );
    await box.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Deft has a question' });
    await dialog.getByRole('radio', { name: /Yes/ }).check();
    await dialog.getByRole('button', { name: 'Submit answers' }).click();
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await expect(approval).toBeVisible();
    await approval.getByRole('button', { name: 'Approve once' }).click();
    await expect(page.getByText('half-to-even rounding')).toBeVisible();
    await shot(page, testInfo, `conversation-cards-${tag}`);

    // The file viewer, opened from a card's path.
    await page.getByRole('region', { name: 'Read tool call' }).getByRole('button', { name: 'src/money.js', exact: true }).click();
    await expect(page.getByRole('complementary', { name: 'File viewer' })).toContainText('currency');
    await shot(page, testInfo, `file-viewer-${tag}`);
    await page.keyboard.press('Escape');

    // "Always allow" with the proposed prefix rule.
    mock.enqueue(toolStep(call('Bash', { command: 'npm test -- --coverage' })), answer('Tests pass.'));
    await send(page, 'Run the tests');
    await page.getByRole('region', { name: 'Approval needed' }).getByRole('button', { name: 'Always allow…' }).click();
    await expect(page.getByLabel('Rule to add to .deft/settings.local.json')).toHaveValue('Bash(npm test:*)');
    await shot(page, testInfo, `always-allow-editor-${tag}`);
    await page.getByRole('button', { name: 'Save and allow' }).click();
    await expect(page.getByText('Tests pass.')).toBeVisible();

    // The slash menu and the model menu.
    await box.fill('/');
    await expect(page.getByRole('listbox', { name: 'Commands and skills' })).toBeVisible();
    await shot(page, testInfo, `composer-slash-menu-${tag}`);
    await box.fill('');
    await page.getByRole('button', { name: /^Model: / }).click();
    await expect(page.getByRole('dialog', { name: 'Model for this session' }).getByRole('button', { name: 'mock-model-large' })).toBeVisible();
    await shot(page, testInfo, `composer-model-menu-${tag}`);
    await page.keyboard.press('Escape');

    // Sessions: a second one, the search, a row's menu (where the sidebar is shown at this size).
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    if (await sidebar.isVisible()) {
      await page.getByRole('button', { name: 'New session' }).click();
      await send(page, 'Write release notes for the rounding change in the money module');
      await expect(page.getByText('Echo: Write release notes')).toBeVisible();
      await sidebar.getByRole('button', { name: /^Actions for Write release notes/ }).click();
      await shot(page, testInfo, `sessions-menu-${tag}`);
      await page.keyboard.press('Escape');
      await sidebar.getByRole('searchbox', { name: 'Search sessions' }).fill('rounding');
      await expect(sidebar.getByRole('status')).toHaveText(/sessions? found/);
      await shot(page, testInfo, `sessions-search-${tag}`);
      await sidebar.getByRole('searchbox', { name: 'Search sessions' }).fill('');
    }

    // Settings, page by page.
    await page.keyboard.press('Control+,');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    for (const name of ['Model provider', 'Permissions', 'Appearance', 'Keyboard shortcuts', 'Data']) {
      await settings.getByRole('tab', { name }).click();
      await expect(settings.getByRole('tabpanel', { name })).toBeVisible();
      if (name === 'Data') await expect(settings.getByText('Disk used here')).toBeVisible();
      await shot(page, testInfo, `settings-${name.toLowerCase().replace(/ /g, '-')}-${tag}`);
    }
  });
}

