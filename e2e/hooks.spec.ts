import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, send, test as base } from './fixtures/deft';

const blockRm = { type: 'command', command: 'grep -q \'"command":"rm \' && { echo "rm is blocked: move files to ./trash" >&2; exit 2; }; exit 0' };

/** A prompt hook that changes nothing (its output is context for the model). */
const promptNote = { type: 'command', command: 'echo noted' };

/** The user's hook that blocks rm, a prompt hook, and a cloned repository's hook that is not run until the folder is trusted. */
const test = base.extend({
  permissionMode: 'yolo',
  home: async ({ home }, use) => {
    const path = join(home, 'settings.json');
    const current = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(
      path,
      JSON.stringify({ ...current, hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [blockRm] }], UserPromptSubmit: [{ hooks: [promptNote] }] } }),
    );
    await use(home);
  },
  workspace: async ({ workspace }, use) => {
    await mkdir(join(workspace, '.deft'));
    await writeFile(
      join(workspace, '.deft/settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: 'touch "$DEFT_PROJECT_DIR/pwned"' }] }] } }),
    );
    await use(workspace);
  },
});

test('a blocking hook leaves a notice in the transcript; Settings lists the hooks in effect; the repo’s hook waits for trust', async ({
  deft,
  mock,
  workspace,
}, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    { chunks: [{ toolCall: { id: 'r1', name: 'Bash', args: JSON.stringify({ command: 'rm -rf build' }) } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'I will not delete it.' }, { finish: 'stop' }] },
  );
  await send(page, 'clean the build folder');
  await expect(page.getByText(/PreToolUse hook .* \(your settings\) blocked Bash: rm is blocked: move files to \.\/trash/)).toBeVisible();
  await expect(page.getByText('I will not delete it.')).toBeVisible();
  // The prompt hook changed nothing: a small chip on its own line, not a row of text; it opens to what it said.
  const quiet = page.locator('.hook-line');
  await expect(quiet.locator('summary')).toHaveText('1 hook ran');
  await expect(page.getByText(/UserPromptSubmit hook/)).toBeHidden();
  await quiet.locator('summary').click();
  await expect(quiet.getByText(/UserPromptSubmit hook “echo noted” \(your settings\)/)).toBeVisible();

  // The trust banner names the workspace's hook, which has not run.
  const banner = page.getByRole('alert', { name: 'Folder not trusted' });
  await expect(banner).toContainText('hook SessionStart: touch "$DEFT_PROJECT_DIR/pwned"');
  for (const size of [
    { width: 1280, height: 800 },
    { width: 900, height: 700 },
  ]) {
    await page.setViewportSize(size);
    await testInfo.attach(`hooks-transcript-${size.width}`, { body: await page.screenshot(), contentType: 'image/png' });
  }

  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Hooks' }).click();
  const list = dialog.getByRole('list', { name: 'Hooks in effect' });
  await list.scrollIntoViewIfNeeded();
  await expect(list.getByRole('listitem')).toHaveCount(3);
  await expect(list.getByRole('listitem').first()).toContainText('PreToolUse');
  await expect(list.getByRole('listitem').first()).toContainText('Your settings');
  await expect(list.getByRole('listitem').nth(2)).toContainText('Not run: this folder is not trusted');
  await testInfo.attach('hooks-settings', { body: await page.screenshot(), contentType: 'image/png' });
  await page.keyboard.press('Escape');

  await banner.getByRole('button', { name: 'Trust this folder' }).click();
  await expect(banner).toBeHidden();
  await page.keyboard.press('Control+,');
  await dialog.getByRole('tab', { name: 'Hooks' }).click();
  await expect(dialog.getByRole('list', { name: 'Hooks in effect' }).getByText('Not run: this folder is not trusted')).toHaveCount(0);
  expect(await readFile(join(workspace, 'pwned')).catch(() => null)).toBeNull();
});
