import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from '@playwright/test';
import { configureProvider, expect, send, test as base } from './fixtures/deft';

const TEST_SERVER = resolve(import.meta.dirname, '../test-support/mcp-test-server.mjs');
const OAUTH_SERVER = resolve(import.meta.dirname, '../test-support/mcp-oauth-server.mjs');
const stdio = (env: Record<string, string> = {}) => ({ command: process.execPath, args: [TEST_SERVER], env });

/** The user's own servers (a working one and one that fails at start) and a project server in a trusted workspace. */
const test = base.extend({
  permissionMode: 'yolo',
  home: async ({ home, workspace }, use) => {
    await writeFile(
      join(home, 'mcp.json'),
      JSON.stringify({ mcpServers: { tools: stdio(), broken: stdio({ MCP_TEST_FAIL_START: 'cannot open /data/db.sqlite: no such file' }) } }),
    );
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [workspace]: { trusted: true } } }));
    await use(home);
  },
  workspace: async ({ workspace }, use) => {
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: stdio() } }));
    await use(workspace);
  },
});

async function openMcpSettings(page: Page) {
  await page.keyboard.press('Control+,');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'MCP servers' }).click();
  await expect(dialog.getByRole('heading', { name: 'MCP servers' })).toBeVisible();
  return dialog;
}

test('Settings → MCP servers: a connected server with its tools, a failing one with its error, and approving a project server', async ({
  deft,
  mock,
}, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const dialog = await openMcpSettings(page);

  const tools = dialog.getByRole('listitem', { name: 'MCP server tools' });
  await expect(tools.getByRole('status')).toHaveText(/Connected · 11 tools/, { timeout: 20_000 });
  await tools.getByText('Tools (11)').click();
  await expect(tools.getByText('mcp__tools__echo')).toBeVisible();
  await expect(tools.getByText('Echo the text back.')).toBeVisible();

  const broken = dialog.getByRole('listitem', { name: 'MCP server broken' });
  await expect(broken.getByRole('status')).toHaveText('Failed', { timeout: 20_000 });
  await expect(broken.getByText(/cannot open \/data\/db.sqlite/).first()).toBeVisible();
  await expect(broken.getByLabel('Last stderr lines of broken')).toContainText('cannot open /data/db.sqlite: no such file');

  const repo = dialog.getByRole('listitem', { name: 'MCP server repo' });
  await expect(repo.getByRole('status')).toHaveText('Waiting for your approval');
  for (const size of [
    { width: 1280, height: 800 },
    { width: 900, height: 700 },
  ]) {
    await page.setViewportSize(size);
    await testInfo.attach(`mcp-settings-${size.width}`, { body: await page.screenshot(), contentType: 'image/png' });
  }
  await repo.getByRole('button', { name: 'Approve repo' }).click();
  await expect(repo.getByRole('status')).toHaveText(/Connected · 11 tools/, { timeout: 20_000 });

  // Disable and enable again from the page.
  await tools.getByRole('button', { name: 'Disable tools' }).click();
  await expect(tools.getByRole('status')).toHaveText('Disabled');
  await tools.getByRole('button', { name: 'Enable tools' }).click();
  await expect(tools.getByRole('status')).toHaveText(/Connected/, { timeout: 20_000 });

  // Adding an invalid server says why and saves nothing.
  await dialog.getByText('Add a server').click();
  await dialog.getByLabel('Server name').fill('bad');
  await dialog.getByLabel('Server JSON').fill('{"args": ["x"]}');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByRole('alert')).toContainText('it has neither "command" nor "url"');

  // Filled in as fields, it is written as the JSON entry and starts.
  await dialog.getByLabel('Server name').fill('formed');
  await dialog.getByLabel('Runs as').selectOption('stdio');
  await dialog.getByLabel('Command', { exact: true }).fill(process.execPath);
  await dialog.getByLabel('Arguments, one per line').fill(TEST_SERVER);
  await expect(dialog.getByLabel('Server JSON')).toHaveValue(JSON.stringify({ command: process.execPath, args: [TEST_SERVER] }, null, 2));
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await expect(dialog.getByRole('listitem', { name: 'MCP server formed' }).getByRole('status')).toHaveText(/Connected · 11 tools/, { timeout: 20_000 });

  // Editing one of your servers: an invalid entry is refused with why; a fixed one replaces it and starts.
  await broken.getByRole('button', { name: 'Edit broken' }).click();
  const editor = broken.getByLabel('JSON of broken');
  await expect(editor).toHaveValue(/MCP_TEST_FAIL_START/);
  await editor.fill('{"args": []}');
  await broken.getByRole('button', { name: 'Save broken' }).click();
  await expect(broken.getByRole('alert')).toContainText('it has neither "command" nor "url"');
  await editor.fill(JSON.stringify(stdio()));
  await broken.getByRole('button', { name: 'Save broken' }).click();
  await expect(broken.getByRole('status')).toHaveText(/Connected · 11 tools/, { timeout: 20_000 });
});

test('an MCP tool call gets a card with the server, the arguments and the result', async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const dialog = await openMcpSettings(page);
  await expect(dialog.getByRole('listitem', { name: 'MCP server tools' }).getByRole('status')).toHaveText(/Connected/, { timeout: 20_000 });
  await page.keyboard.press('Escape');
  mock.enqueue(
    {
      chunks: [
        { toolCall: { name: 'mcp__tools__echo', args: JSON.stringify({ text: 'from the card' }) } },
        { toolCall: { name: 'mcp__tools__resource', args: '{}' } },
        { finish: 'tool_calls' },
      ],
    },
    { chunks: [{ text: 'Both ran.' }, { finish: 'stop' }] },
  );
  await send(page, 'use the tools');
  await expect(page.getByText('Both ran.')).toBeVisible({ timeout: 20_000 });
  const card = page.getByRole('group', { name: 'mcp__tools__echo tool call' });
  await expect(card).toBeVisible();
  await card.getByRole('button').first().click();
  await expect(card.getByText('echo: from the card')).toBeVisible();
  await expect(card.getByText('"text": "from the card"')).toBeVisible();
  await expect(card).toContainText('tools');
  const resource = page.getByRole('group', { name: 'mcp__tools__resource tool call' });
  await resource.getByRole('button').first().click();
  await expect(resource.getByLabel('Resources')).toContainText('file:///notes.txt');
  await testInfo.attach('mcp-card', { body: await page.screenshot(), contentType: 'image/png' });
});

test("an MCP server's prompt is a slash command beside the skills: its arguments in order, its text sent to the model", async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const dialog = await openMcpSettings(page);
  await expect(dialog.getByRole('listitem', { name: 'MCP server tools' }).getByRole('status')).toHaveText(/Connected/, { timeout: 20_000 });
  await page.keyboard.press('Escape');
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('/mcp__tools__re');
  const option = page.getByRole('option', { name: /mcp__tools__review/ });
  await expect(option).toContainText('<file> [focus]');
  await expect(option).toContainText('Review a file.');
  await expect(option).toContainText('MCP');
  await testInfo.attach('mcp-prompt-menu', {
    body: await page.screenshot({ path: process.env.DEFT_SCREENS_DIR ? join(process.env.DEFT_SCREENS_DIR, 'mcp-prompt-menu.png') : undefined }),
    contentType: 'image/png',
  });
  await page.keyboard.press('Tab');
  await expect(composer).toHaveValue('/mcp__tools__review ');
  await composer.pressSequentially('src/app.ts error handling');
  await page.keyboard.press('Enter');
  // The mock model answers with the last user text it read: the prompt the server returned.
  await expect(page.getByText('Echo: Review src/app.ts with a focus on error handling.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('article', { name: 'Your message' }).getByText('/mcp__tools__review src/app.ts error handling')).toBeVisible();
});

test('a remote server that needs OAuth: Sign in opens its page in a new tab, and the server connects when it sends the browser back', async ({
  deft,
  mock,
  home,
}, testInfo) => {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [OAUTH_SERVER, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve) => child.stdout.on('data', (d: Buffer) => resolve(Number(/listening (\d+)/.exec(d.toString())![1]))));
    await writeFile(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { secured: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } }));
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    const dialog = await openMcpSettings(page);
    const server = dialog.getByRole('listitem', { name: 'MCP server secured' });
    await expect(server.getByRole('status')).toHaveText('Needs authentication', { timeout: 20_000 });
    await expect(server).toContainText('choose Sign in');
    await testInfo.attach('mcp-needs-auth', {
      body: await page.screenshot({ path: process.env.DEFT_SCREENS_DIR ? join(process.env.DEFT_SCREENS_DIR, 'mcp-needs-auth.png') : undefined }),
      contentType: 'image/png',
    });
    const [tab] = await Promise.all([page.waitForEvent('popup'), server.getByRole('link', { name: 'Sign in to secured' }).click()]);
    await expect(tab.getByRole('heading', { name: 'Deft is signed in to secured' })).toBeVisible({ timeout: 20_000 });
    await expect(server.getByRole('status')).toHaveText(/Connected · 1 tool/, { timeout: 20_000 });
  } finally {
    child.kill();
  }
});
