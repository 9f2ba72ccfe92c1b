import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { type MockChunk, type RecordedRequest, lastUserText } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

/** Browser globals used inside page.evaluate (the e2e project is typed for Node). */
interface BrowserGlobals {
  DataTransfer: new () => { items: { add(file: File): void } };
  ClipboardEvent: new (type: string, init: { clipboardData: unknown; bubbles: boolean; cancelable: boolean }) => Event;
}

const call = (id: string, name: string, args: unknown): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args), pieces: 2 } });

const APP = `export function greet(name: string): string {
  return 'Hello, ' + name;
}

export const version = 1;
`;

// These specs are about what file tools show, not about approving them (e2e/control.spec.ts covers that).
test.use({ permissionMode: 'accept-edits' });

test('an Edit card shows the diff, and the changed-files summary opens it', async ({ deft, mock, workspace }, testInfo) => {
  const { page } = deft;
  await mkdir(join(workspace, 'src'), { recursive: true });
  await writeFile(join(workspace, 'src/app.ts'), APP);
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    { chunks: [call('r1', 'Read', { path: 'src/app.ts' }), { finish: 'tool_calls' }] },
    {
      chunks: [
        call('e1', 'Edit', { path: 'src/app.ts', old_string: "  return 'Hello, ' + name;", new_string: '  return `Hello, ${name}!`;' }),
        { finish: 'tool_calls' },
      ],
    },
    { chunks: [{ text: 'I switched greet to a template literal.' }, { finish: 'stop' }] },
  );
  await send(page, 'Use a template literal in greet');

  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('I switched greet to a template literal.')).toBeVisible();

  const read = log.getByRole('group', { name: 'Read tool call' });
  await expect(read.locator('.tool-summary')).toHaveText('L1–5');
  await read.getByRole('button', { name: /Read src\/app\.ts/ }).click();
  await expect(read.locator('.code-table')).toContainText("return 'Hello, ' + name;");
  await expect(read.locator('.hljs-keyword').first()).toHaveText('export');

  const edit = log.getByRole('group', { name: 'Edit tool call' });
  await expect(edit.locator('.tool-summary')).toContainText('+1 −1');
  await expect(edit.locator('tr.diff-del')).toHaveCount(1);
  await expect(edit.locator('tr.diff-del')).toContainText("return 'Hello, ' + name;");
  await expect(edit.locator('tr.diff-add')).toContainText('return `Hello, ${name}!`;');
  await expect(edit.locator('tr.diff-hunk')).toHaveText('@@ -1,5 +1,5 @@');
  await testInfo.attach('edit-card', { body: await page.screenshot(), contentType: 'image/png' });

  await edit.getByRole('button', { name: 'Split' }).click();
  await expect(edit.locator('table.diff-split')).toBeVisible();
  await expect(edit.locator('table.diff-split td.diff-del.diff-code')).toContainText("return 'Hello, ' + name;");
  await edit.getByRole('button', { name: 'Unified' }).click();

  const changes = log.getByRole('group', { name: 'Changed files' });
  await expect(changes).toContainText('Changed 1 file');
  await changes.getByRole('button', { name: 'Show changes to src/app.ts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Changes to src/app.ts' });
  await expect(dialog.locator('tr.diff-add')).toContainText('return `Hello, ${name}!`;');
  await testInfo.attach('changes-dialog', { body: await page.screenshot(), contentType: 'image/png' });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('Grep and Glob results are shown grouped by file and as a list', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await mkdir(join(workspace, 'src'), { recursive: true });
  await writeFile(join(workspace, 'src/a.ts'), 'const token = 1;\nconst other = token;\n');
  await writeFile(join(workspace, 'src/b.ts'), 'export const token = 2;\n');
  await utimes(join(workspace, 'src/a.ts'), 1_000_000, 1_000_000);
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    { chunks: [call('g1', 'Grep', { pattern: 'token', output_mode: 'content' }), call('g2', 'Glob', { pattern: '*.ts' }), { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Found them.' }, { finish: 'stop' }] },
  );
  await send(page, 'Where is token used?');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Found them.')).toBeVisible();
  const grep = log.getByRole('group', { name: 'Grep tool call' });
  await expect(grep.locator('.tool-summary')).toHaveText('3 matches · 2 files');
  await grep.getByRole('button').first().click();
  await expect(grep.getByRole('group', { name: 'src/a.ts' }).locator('tr')).toHaveCount(2);
  await expect(grep.getByRole('group', { name: 'src/b.ts' }).locator('mark')).toHaveText('token');
  const glob = log.getByRole('group', { name: 'Glob tool call' });
  await glob.getByRole('button').first().click();
  await expect(glob.locator('.file-list li')).toHaveText(['src/b.ts', 'src/a.ts']);
});

async function configureWithImages(page: Page, baseUrl: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Connect a model to get started' })).toBeVisible();
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Model', { exact: true }).fill('mock-vision');
  await page.getByLabel('API key').fill('sk-e2e');
  await page.getByText('Advanced: protocol, images, context window').click();
  await page.getByLabel('This model accepts images').check();
  await page.getByRole('button', { name: 'Start using Deft' }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

/** Drop files on the window the way a file manager does. */
async function dropImage(page: Page, name: string, bytes: Buffer, type = 'image/png'): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ name, base64, type }) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new (globalThis as unknown as BrowserGlobals).DataTransfer();
      transfer.items.add(new File([data], name, { type }));
      return transfer;
    },
    { name, base64: bytes.toString('base64'), type },
  );
  await page.dispatchEvent('main', 'dragenter', { dataTransfer });
  await expect(page.getByText('Drop images or files to add them to your message')).toBeVisible();
  await page.dispatchEvent('main', 'drop', { dataTransfer });
}

test('a dropped image is attached to the prompt and the model sees it through ReadMediaFile', async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await configureWithImages(page, mock.baseUrl);
  const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#3b82f6' } })
    .png()
    .toBuffer();
  await dropImage(page, 'mockup.png', png);
  const composerImages = page.getByRole('list', { name: 'Attached images' });
  await expect(composerImages.getByRole('img', { name: 'mockup.png' })).toBeVisible();

  // A file that is not an image is mentioned instead (e2e/composer.spec.ts follows it to the model); no image is added.
  await dropImage(page, 'spec.pdf', Buffer.from('%PDF-1.7'), 'application/pdf');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('@spec.pdf ');
  await expect(composerImages.getByRole('img')).toHaveCount(1);
  await page.getByRole('textbox', { name: 'Message' }).fill('');

  let step = 0;
  mock.fallback = (request: RecordedRequest) => {
    step++;
    if (step === 1) {
      const path = /- mockup\.png: (\S+)/.exec(lastUserText(request))?.[1] ?? 'missing';
      return { chunks: [call('m1', 'ReadMediaFile', { path }), { finish: 'tool_calls' }] };
    }
    return { chunks: [{ text: 'A blue rectangle.' }, { finish: 'stop' }] };
  };
  await send(page, 'What is in this mockup?');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('A blue rectangle.')).toBeVisible();
  await expect(log.getByRole('article', { name: 'Your message' }).getByRole('img', { name: 'mockup.png' })).toBeVisible();
  await expect(composerImages).toHaveCount(0);

  const media = log.getByRole('group', { name: 'ReadMediaFile tool call' });
  await expect(media.getByRole('img', { name: /^Image .*mockup\.png$/ })).toBeVisible();
  await expect(media).toContainText('320×200 PNG · sent original');
  const followUp = mock.requests[1]!.body.messages.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>;
  expect(followUp[1]!.image_url!.url).toBe(`data:image/png;base64,${png.toString('base64')}`);
  await testInfo.attach('image-attachment', { body: await page.screenshot(), contentType: 'image/png' });

  // After a reload the sent message still shows its thumbnail (fetched from the core).
  await page.reload();
  await expect(page.getByRole('article', { name: 'Your message' }).getByRole('img', { name: 'mockup.png' })).toBeVisible();
});

test('a pasted image is attached too, and can be removed before sending', async ({ deft, mock }) => {
  const { page } = deft;
  await configureWithImages(page, mock.baseUrl);
  const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#f59e0b' } })
    .jpeg()
    .toBuffer();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.evaluate((el, base64) => {
    const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const browser = globalThis as unknown as BrowserGlobals;
    const transfer = new browser.DataTransfer();
    transfer.items.add(new File([data], 'image.png', { type: 'image/jpeg' }));
    el.dispatchEvent(new browser.ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, jpeg.toString('base64'));
  const images = page.getByRole('list', { name: 'Attached images' });
  await expect(images.getByRole('img')).toHaveCount(1);
  await expect(images.getByRole('img').first()).toHaveAttribute('alt', /^pasted-.*\.jpeg$/);
  await images.getByRole('button', { name: /^Remove pasted-/ }).click();
  await expect(images).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
});
