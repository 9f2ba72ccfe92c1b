import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { SIZES, expectInView } from './fixtures/daily';
import { axeViolations } from './fixtures/axe';

// Issue 18 item 10: Settings beyond the provider — pages with a navigation list.

const PAGES = [
  'Model provider',
  'Permissions',
  'Sandbox',
  'Memory',
  'MCP servers',
  'Hooks',
  'Plugins',
  'Code intelligence',
  'Sub-agent types',
  'Web',
  'Checkpoints',
  'Appearance',
  'Notifications',
  'Model prices',
  'Keyboard shortcuts',
  'Data',
];

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as { permissions?: Record<string, unknown>; provider?: unknown };

for (const size of SIZES) {
  test(`at ${size.width}×${size.height} Settings lists its pages; each opens from the list and from the keyboard`, async ({ deft, mock }) => {
    const { page } = deft;
    await page.setViewportSize(size);
    await configureProvider(page, mock.baseUrl);
    await page.keyboard.press('Control+,');
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    const pages = dialog.getByRole('tablist', { name: 'Settings pages' });
    await expect(pages.getByRole('tab')).toHaveText(PAGES);
    await expect(dialog.getByLabel('Base URL')).toBeFocused();
    await expectInView(page, dialog.getByRole('button', { name: 'Save' }));
    await pages.getByRole('tab', { name: 'Model provider' }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(pages.getByRole('tab', { name: 'Permissions' })).toHaveAttribute('aria-selected', 'true');
    await expect(pages.getByRole('tab', { name: 'Permissions' })).toBeFocused();
    await expect(dialog.getByRole('tabpanel', { name: 'Permissions' })).toContainText('Default mode for new sessions');
    await page.keyboard.press('End');
    await expect(dialog.getByRole('tabpanel', { name: 'Data' })).toBeVisible();
    for (const name of PAGES) {
      await pages.getByRole('tab', { name }).click();
      const panel = dialog.getByRole('tabpanel', { name });
      await expectInView(page, panel.getByRole('heading', { name }), dialog);
    }
  });
}

test('permissions: rules of each file with where they come from; add and remove write the right file', async ({ deft, mock, workspace, home }) => {
  const { page } = deft;
  await mkdir(join(workspace, '.deft'));
  await writeFile(join(workspace, '.deft/settings.json'), JSON.stringify({ permissions: { deny: ['Bash(curl *)'], allow: ['Bash(*)'] } }));
  await configureProvider(page, mock.baseUrl);
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Permissions' }).click();
  const project = dialog.getByRole('list', { name: 'Project, shared rules' });
  await expect(project.getByRole('listitem')).toHaveCount(2);
  await expect(project.getByRole('listitem').filter({ hasText: 'Bash(curl *)' })).toContainText('deny');
  // The untrusted folder's own allow rule is listed, marked unused.
  await expect(project.getByRole('listitem').filter({ hasText: 'Bash(*)' })).toContainText('not used until you trust this folder');
  await expect(dialog.getByText(join(workspace, '.deft/settings.json'))).toBeVisible();

  const add = dialog.getByRole('form', { name: 'Add a rule' });
  await add.getByLabel('Rule').fill('Bash(npm test:*)');
  await add.getByLabel('Settings file').selectOption({ label: 'Your settings' });
  await add.getByRole('button', { name: 'Add rule' }).click();
  await expect(dialog.getByRole('list', { name: 'Your settings rules' }).getByRole('listitem')).toContainText('Bash(npm test:*)');
  const user = await readJson(join(home, 'settings.json'));
  expect(user.permissions).toMatchObject({ allow: ['Bash(npm test:*)'] });
  expect(user.provider).toBeDefined();

  // A rule that does not parse is refused with the reason, and nothing is written.
  await add.getByLabel('Rule').fill('Bash(npm test');
  await add.getByRole('button', { name: 'Add rule' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'is not a rule' })).toBeVisible();

  await project.getByRole('button', { name: 'Remove deny rule Bash(curl *)' }).click();
  await expect(project.getByRole('listitem')).toHaveCount(1);
  expect((await readJson(join(workspace, '.deft/settings.json'))).permissions).toEqual({ deny: [], allow: ['Bash(*)'] });

  // The default mode is saved in the user's file.
  await dialog.getByLabel('Default permission mode').selectOption('accept-edits');
  await expect.poll(async () => (await readJson(join(home, 'settings.json'))).permissions?.defaultMode).toBe('accept-edits');
});

test('permissions: trusted folders are listed; trusting and forgetting the folder', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Permissions' }).click();
  await expect(dialog.getByText('No folders yet.')).toBeVisible();
  await dialog.getByRole('button', { name: 'Trust this folder' }).click();
  const folder = dialog.locator('.trust-list li').filter({ hasText: workspace });
  await expect(folder).toContainText('trusted · this folder');
  await folder.getByRole('button', { name: `Forget ${workspace}` }).click();
  await expect(dialog.getByText('No folders yet.')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Trust this folder' })).toBeVisible();
});

test('appearance switches the theme; shortcuts are listed; data says where sessions live and the disk they use', async ({ deft, mock, home }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'hello');
  await expect(page.getByText('Echo: hello')).toBeVisible();
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Appearance' }).click();
  const theme = dialog.getByRole('group', { name: 'Theme' });
  await theme.getByRole('button', { name: 'Light', exact: true }).click();
  await expect(theme.getByRole('button', { name: 'Light', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await theme.getByRole('button', { name: 'Dark', exact: true }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  await dialog.getByRole('tab', { name: 'Keyboard shortcuts' }).click();
  const shortcuts = dialog.getByRole('tabpanel', { name: 'Keyboard shortcuts' });
  const shortcut = (does: string) => shortcuts.locator('.shortcut').filter({ has: page.getByText(does, { exact: true }) });
  await expect(shortcut('Settings').locator('dt')).toHaveText('Ctrl+,');
  await expect(shortcut('Mention a workspace file').locator('dt')).toHaveText('@');

  await dialog.getByRole('tab', { name: 'Data' }).click();
  const data = dialog.getByRole('tabpanel', { name: 'Data' });
  await expect(data).toContainText(home);
  await expect(data.locator('dd').nth(1)).toContainText(join(home, 'sessions'));
  await expect(data.locator('dd').nth(2)).toHaveText('1');
  await expect(data.locator('dd').nth(3)).toHaveText(/^\d+(\.\d)? (B|KiB)$/);
});

test('sandbox and hooks pages: an allowed host is saved to your settings; a hook added there is tested with a sample event', async ({ deft, mock, home }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // A hook is tested in a session's sandbox: open one.
  await send(page, 'hello');
  await expect(page.getByText('Echo: hello')).toBeVisible({ timeout: 30_000 });
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Sandbox' }).click();
  await dialog.getByLabel('New entry for Allowed hosts').fill('registry.npmjs.org');
  await dialog.getByRole('form', { name: 'Add to Allowed hosts' }).getByRole('button', { name: 'Add' }).click();
  await expect(dialog.getByRole('list', { name: 'Allowed hosts' })).toContainText('registry.npmjs.org');
  expect((await readJson(join(home, 'settings.json'))) as Record<string, unknown>).toMatchObject({
    sandbox: { network: { allowedDomains: ['registry.npmjs.org'] } },
  });

  await dialog.getByRole('tab', { name: 'Hooks' }).click();
  await dialog.getByLabel('Command').fill('echo "no rm here" >&2; exit 2');
  await dialog.getByRole('button', { name: 'Add hook' }).click();
  await dialog.getByRole('button', { name: /^Test PreToolUse hook/ }).click();
  await expect(dialog.getByRole('status', { name: 'Test result' })).toContainText('exit code 2 · decision: blocked');
});

test('plugins page: a local marketplace is added, a plugin shows what it brings (hooks and servers run code), installs and turns off in one click', async ({
  deft,
  mock,
  home,
}, testInfo) => {
  const { page } = deft;
  const market = join(home, 'market');
  const put = async (path: string, text: string) => {
    await mkdir(join(market, path, '..'), { recursive: true });
    await writeFile(join(market, path), text);
  };
  await put('.claude-plugin/marketplace.json', JSON.stringify({ name: 'acme', plugins: [{ name: 'tools', source: './tools', description: 'Acme tools' }] }));
  await put('tools/.claude-plugin/plugin.json', JSON.stringify({ name: 'tools', version: '1.0.0' }));
  await put('tools/skills/greet/SKILL.md', '---\nname: greet\ndescription: Greets.\n---\nHello.');
  await put('tools/commands/shout.md', 'Shout $1.');
  await put('tools/hooks/hooks.json', JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo done' }] }] } }));
  await put('tools/.mcp.json', JSON.stringify({ mcpServers: { acme: { command: 'acme-server', args: ['--stdio'] } } }));
  await configureProvider(page, mock.baseUrl);
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Plugins' }).click();
  await dialog.getByLabel('Add a marketplace').fill(market);
  await dialog.getByRole('button', { name: 'Add', exact: true }).click();
  const offered = dialog.getByRole('region', { name: 'Marketplace acme' }).getByRole('listitem');
  await expect(offered).toContainText('greet');
  await expect(offered).toContainText('/shout');
  await expect(offered).toContainText('Stop: echo done');
  await expect(offered).toContainText('acme: acme-server --stdio');
  await expect(offered.getByText('runs code')).toHaveCount(2);
  await offered.getByRole('button', { name: 'Install tools' }).click();
  const toggle = dialog.getByRole('checkbox', { name: 'tools' });
  await expect(toggle).toBeChecked();
  expect(JSON.parse(await readFile(join(home, 'plugins.json'), 'utf8'))).toMatchObject({ plugins: { 'tools@acme': { enabled: true } } });
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300); // the theme's colour transitions
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.screenshot({ path: testInfo.outputPath(`plugins-${size.width}-${scheme}.png`) });
    }
    expect(await axeViolations(page), `plugins page, ${scheme}`).toEqual([]);
  }
  await toggle.click();
  await expect(toggle).not.toBeChecked();
  expect(JSON.parse(await readFile(join(home, 'plugins.json'), 'utf8'))).toMatchObject({ plugins: { 'tools@acme': { enabled: false } } });
});
