import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockChunk } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { type LocalServer, routes, send as respond, startSearchMock, startServer } from '../test-support/web-servers';

const call = (id: string, name: string, args: unknown): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args), pieces: 2 } });

const ARTICLE = `<!doctype html><html><head><title>Widget Guide</title><script>window.pwned = 'script'</script></head>
<body><nav>Site navigation menu</nav><main><article><h1>Widget Guide</h1>
<p>Widgets are configured with a file called <code>widget.toml</code>. This guide explains every option that a widget accepts and how the options interact.</p>
<h2>Install</h2><pre><code class="language-sh">npm install widget</code></pre>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>size</td><td>10</td></tr></tbody></table>
<p><img src="x" onerror="window.pwned = 'img'" alt="diagram"> Nested widgets are covered in the advanced section of this guide, below the options table.</p>
</article></main></body></html>`;

// Markdown that tries to smuggle HTML into the preview: it must show as text, never run.
const HOSTILE_MARKDOWN = `# Notes\n\n<img src=x onerror="window.pwned='md'"> <script>window.pwned='md-script'</script>\n\n[click me](javascript:window.pwned='link')\n`;

async function addSettings(home: string, extra: Record<string, unknown>): Promise<void> {
  const path = join(home, 'settings.json');
  const current = JSON.parse(await readFile(path, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...current, ...extra }));
}

let pages: LocalServer;
test.beforeAll(async () => {
  pages = await startServer(routes({ '/guide': respond(200, 'text/html', ARTICLE), '/notes.md': respond(200, 'text/markdown', HOSTILE_MARKDOWN) }));
});
test.afterAll(() => pages.close());

test.describe('in yolo mode', () => {
  test.use({ permissionMode: 'yolo' });

  test('a URL card and a search card render; links open outside Deft; nothing from the page runs', async ({ deft, mock, home }, testInfo) => {
    const { page } = deft;
    const search = await startSearchMock('searxng');
    try {
      await configureProvider(page, mock.baseUrl);
      await addSettings(home, { web: { allowPrivateHosts: [pages.authority], search: { provider: 'searxng', baseUrl: search.url } } });
      mock.enqueue(
        {
          chunks: [
            call('f1', 'FetchURL', { url: `${pages.url}/guide` }),
            call('s1', 'WebSearch', { query: 'widget configuration' }),
            call('f2', 'FetchURL', { url: `${pages.url}/notes.md` }),
            { finish: 'tool_calls' },
          ],
        },
        { chunks: [{ text: 'Read the [Widget Guide](https://deft.example/docs).' }, { finish: 'stop' }] },
      );
      await send(page, 'How are widgets configured?');
      const log = page.getByRole('log', { name: 'Conversation' });
      // The first fetch loads the HTML-to-Markdown converter (linkedom, Readability, turndown): seconds on a loaded machine.
      await expect(log.getByText('Read the')).toBeVisible({ timeout: 30_000 });

      const cards = log.getByRole('group', { name: 'FetchURL tool call' });
      const card = cards.first();
      // One header pattern: the toggle names the tool; the title, host and facts sit beside it.
      const header = card.locator('.tool-header');
      const toggle = card.getByRole('button').first();
      await expect(header).toContainText('Widget Guide');
      await expect(header).toContainText(pages.authority);
      await expect(header).toContainText('HTTP 200');
      await expect(header).toContainText('main text');
      await expect(toggle).toHaveAttribute('aria-expanded', 'false');
      const open = card.getByRole('link', { name: `Open ${pages.authority} in your browser` });
      await expect(open).toHaveAttribute('target', '_blank');
      await expect(open).toHaveAttribute('rel', 'noopener noreferrer');
      await toggle.click();
      const preview = card.getByLabel('Page preview');
      await expect(preview.getByRole('heading', { name: 'Widget Guide' })).toBeVisible();
      await expect(preview.locator('table')).toContainText('size');
      await expect(preview.locator('pre')).toContainText('npm install widget');
      await expect(preview.locator('img')).toHaveCount(0);
      await expect(preview).not.toContainText('Site navigation');

      const results = log.getByRole('group', { name: 'WebSearch tool call' });
      await expect(results.locator('.tool-header')).toContainText('“widget configuration”');
      await expect(results.locator('.tool-header')).toContainText('2 results');
      const first = results.getByRole('link', { name: 'Deft — a desktop coding agent' });
      await expect(first).toHaveAttribute('href', 'https://deft.example/docs');
      await expect(first).toHaveAttribute('target', '_blank');
      await expect(first).toHaveAttribute('rel', 'noopener noreferrer');
      await expect(results).toContainText('2026-03-01');
      await expect(results).toContainText('Deft reads, edits and runs your code safely.');
      await expect(results).toContainText('blog.example.org');

      const notes = cards.nth(1);
      await notes.getByRole('button').first().click();
      const hostile = notes.getByLabel('Page preview');
      await expect(hostile).toContainText('<img src=x onerror=');
      await expect(hostile.locator('img, script')).toHaveCount(0);
      await expect(hostile.getByText('click me')).toBeVisible();
      await expect(hostile.locator('a[href^="javascript"]')).toHaveCount(0);
      expect(await page.evaluate(() => (globalThis as { pwned?: string }).pwned)).toBeUndefined();

      for (const [width, height] of [
        [1280, 800],
        [1920, 1080],
        [900, 700],
      ] as const) {
        await page.setViewportSize({ width, height });
        await results.scrollIntoViewIfNeeded();
        await testInfo.attach(`web-cards-${width}x${height}`, { body: await page.screenshot(), contentType: 'image/png' });
      }
      // Clicking a result leaves Deft's page where it is (a new tab here; the system browser in Electron).
      const url = page.url();
      const popup = page.waitForEvent('popup');
      await first.click();
      await (await popup).close();
      expect(page.url()).toBe(url);
    } finally {
      await search.close();
    }
  });
});

test('the first fetch from a host asks, naming the host; Settings → Web tests and saves a provider', async ({ deft, mock, home }, testInfo) => {
  const { page } = deft;
  const search = await startSearchMock('searxng');
  try {
    await configureProvider(page, mock.baseUrl);
    await addSettings(home, { web: { allowPrivateHosts: [pages.authority] } });
    mock.enqueue(
      { chunks: [call('f1', 'FetchURL', { url: `${pages.url}/guide` }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Done reading.' }, { finish: 'stop' }] },
    );
    await send(page, 'Read the guide');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await expect(approval).toContainText(`GET ${pages.url}/guide`);
    await expect(approval).toContainText(`FetchURL(http://${pages.authority}/*)`);
    await testInfo.attach('web-approval', { body: await page.screenshot(), contentType: 'image/png' });
    await approval.getByRole('button', { name: `Allow ${pages.authority} for session` }).click();
    await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Done reading.')).toBeVisible();

    await page.keyboard.press('Control+,');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('tab', { name: 'Web' }).click();
    const web = settings.getByRole('region', { name: 'Web settings' });
    await web.getByLabel('Search provider').selectOption('searxng');
    await web.getByLabel('Instance URL').fill(search.url);
    await web.getByRole('button', { name: 'Test' }).click();
    await expect(web.getByRole('status')).toContainText('Works: 2 results');
    await expect(web.getByLabel('Allowed private hosts')).toHaveValue(pages.authority);
    await web.getByRole('button', { name: 'Save web settings' }).click();
    await expect(web.getByText('Saved')).toBeVisible();
    await web.scrollIntoViewIfNeeded();
    await testInfo.attach('settings-web', { body: await page.screenshot(), contentType: 'image/png' });
    const saved = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8')) as { web: unknown };
    expect(saved.web).toEqual({ allowPrivateHosts: [pages.authority], search: { provider: 'searxng', baseUrl: search.url } });

    search.state.behaviour = 401;
    await web.getByRole('button', { name: 'Test' }).click();
    await expect(web.getByRole('alert')).toContainText('HTTP 401');
  } finally {
    await search.close();
  }
});
