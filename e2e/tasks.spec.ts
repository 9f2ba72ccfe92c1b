import { configureProvider, expect, send, test } from './fixtures/deft';

// These specs are about running commands, not approving them (e2e/control.spec.ts covers approvals).
test.use({ permissionMode: 'yolo' });

const bashCall = (args: Record<string, unknown>) => ({
  chunks: [{ toolCall: { name: 'Bash', args: JSON.stringify(args) } }, { finish: 'tool_calls' as const }],
});

test('a long command streams into its card, shows it is waiting, and Stop ends it', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(bashCall({ command: 'for i in 1 2 3 4 5; do echo "compiling module $i"; sleep 0.3; done; sleep 120', description: 'build the project' }));
  mock.enqueue({ chunks: [{ text: 'The build was stopped.' }, { finish: 'stop' }] });
  await send(page, 'Build the project');

  const card = page.getByRole('group', { name: 'Bash tool call' });
  await expect(card.locator('.tool-header')).toContainText('for i in 1 2 3 4 5');
  await expect(card.getByRole('log', { name: 'Live output' }).or(card.getByLabel('Live output'))).toContainText('compiling module 1');
  await expect(card.getByLabel('Live output')).toContainText('compiling module 5');
  await expect(card.getByRole('status').filter({ hasText: /Waiting — no output for \d+ s/ })).toBeVisible({ timeout: 15_000 });

  await card.getByRole('button', { name: 'Stop command' }).click();
  await expect(card).toContainText('Command stopped by the user', { timeout: 10_000 });
  await expect(card.getByText('stopped', { exact: true })).toBeVisible();
  await expect(page.getByText('The build was stopped.')).toBeVisible();
  const toolMessage = mock.requests.at(-1)!.body.messages.at(-1)!;
  expect(String(toolMessage.content)).toMatch(/compiling module 5\nCommand stopped by the user after/);
});

test('the tasks panel shows a background job, its output, and stops it', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(bashCall({ command: 'i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.2; done', run_in_background: true, description: 'ticker' }));
  mock.enqueue({ chunks: [{ text: 'The ticker runs in the background.' }, { finish: 'stop' }] });
  await send(page, 'Start the ticker');

  const card = page.getByRole('group', { name: 'Bash tool call' });
  await expect(page.getByText('The ticker runs in the background.')).toBeVisible();
  await card.getByRole('button').first().click();
  await expect(card.getByRole('status')).toContainText(/Started in the background as bash-[0-9a-z]{8}/);

  const toggle = page.getByRole('button', { name: 'Tasks (1 running)' });
  await expect(toggle).toBeVisible();
  await toggle.click();
  const panel = page.getByRole('complementary', { name: 'Tasks' });
  const task = panel.getByRole('listitem', { name: 'Task ticker' });
  await expect(task).toContainText('Running');
  await expect(task).toContainText(/tick [3-9]/);

  await task.getByRole('button', { name: 'Open full output' }).click();
  const dialog = page.getByRole('dialog', { name: 'Output of ticker' });
  await expect(dialog.getByLabel('Task output')).toContainText('tick 1\ntick 2');
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  await expect(dialog).toBeHidden();

  await task.getByRole('button', { name: 'Stop ticker' }).click();
  await expect(task).toContainText('Stopped');
  await expect(task).toContainText('stopped by the user');
  await expect(page.getByRole('button', { name: 'Tasks', exact: true })).toBeVisible();
  const shown = await task.locator('pre').innerText();
  await page.waitForTimeout(600);
  expect(await task.locator('pre').innerText()).toBe(shown);

  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  // The focus goes back to where it was before the panel opened, not to the page body.
  await expect(page.getByRole('button', { name: 'Tasks', exact: true })).toBeFocused();

  // A finished task cleared from the list stays cleared after a reload (the core keeps that, and the log).
  await page.getByRole('button', { name: 'Tasks', exact: true }).click();
  await task.getByRole('button', { name: 'Clear ticker from the list' }).click();
  await expect(task).toBeHidden();
  await page.reload();
  await expect(page.getByText('The ticker runs in the background.')).toBeVisible();
  await page.getByRole('button', { name: 'Tasks', exact: true }).click();
  await expect(panel.getByText(/^No background tasks/)).toBeVisible();
  await expect(task).toBeHidden();
});

test('scheduled prompts appear in the tasks panel with their next fire time, and can be deleted', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue({
    chunks: [
      { toolCall: { name: 'CronCreate', args: JSON.stringify({ cron: '0 9 * * MON-FRI', prompt: 'Summarise overnight CI failures.' }) } },
      { finish: 'tool_calls' },
    ],
  });
  mock.enqueue({ chunks: [{ text: 'Scheduled.' }, { finish: 'stop' }] });
  await send(page, 'Every weekday morning, summarise CI failures');
  await expect(page.getByText('Scheduled.', { exact: true })).toBeVisible();

  await page.keyboard.press('Control+`');
  const panel = page.getByRole('complementary', { name: 'Tasks' });
  const job = panel.getByRole('listitem', { name: /^Scheduled prompt [0-9a-f]{8}$/ });
  await expect(job).toContainText('at 09:00 on Monday to Friday');
  await expect(job).toContainText('Summarise overnight CI failures.');
  await expect(job).toContainText(/Next: in \d+/);
  await job.getByRole('button', { name: /^Delete scheduled prompt/ }).click();
  await expect(job).toBeHidden();
  await expect(panel).toContainText('Nothing scheduled.');
});
