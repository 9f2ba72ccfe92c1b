import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { SIZES, answer, dropFile, expectInView, userTexts } from './fixtures/daily';

// Issue 18 item 7: @-mentions, dropped files, prompt recall, the model chip, the composer's own commands.

async function files(root: string, tree: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

test('@ opens a fuzzy file picker that honours .gitignore and never offers secrets; the chip reaches the model as a file to Read', async ({
  deft,
  mock,
  workspace,
}) => {
  const { page } = deft;
  await files(workspace, {
    '.gitignore': 'dist/\n',
    'src/money.js': 'export const add = (a, b) => a + b;\n',
    'src/moneyFormat.js': '',
    'dist/money.bundle.js': '',
    '.env': 'TOKEN=secret',
    'docs/money-guide.md': '',
  });
  await configureProvider(page, mock.baseUrl);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.pressSequentially('Explain @mone');
  const picker = page.getByRole('listbox', { name: 'Workspace files' });
  await expect(picker.getByRole('option').first()).toHaveText(/money\.js\s*src\//);
  await expect(picker.getByRole('option', { name: /money\.bundle\.js/ })).toHaveCount(0);
  await box.press('Backspace');
  await box.press('Backspace');
  await box.press('Backspace');
  await box.press('Backspace');
  await box.pressSequentially('env');
  await expect(picker.getByRole('option', { name: /^\.env/ })).toHaveCount(0);
  await box.press('Escape');
  await expect(picker).toBeHidden();
  await box.fill('');

  await box.pressSequentially('Explain @srcmoneyjs');
  await expect(picker.getByRole('option', { selected: true })).toContainText('money.js');
  await box.press('Enter');
  await expect(box).toHaveValue('Explain @src/money.js ');
  await expect(page.locator('.mention-chip')).toHaveText('@src/money.js');
  await box.pressSequentially('please');
  mock.enqueue(answer('It adds.'));
  await box.press('Enter');
  await expect(page.getByText('It adds.')).toBeVisible();
  expect(userTexts(mock.requests.at(-1)).at(-1)).toBe(
    'Explain @src/money.js please\n\nFiles the user referred to with @ (open them with Read when they matter):\n- src/money.js',
  );
  // The sent message shows the chip, and the chip opens the file read-only.
  const sent = page.getByRole('article', { name: 'Your message' });
  await sent.getByRole('button', { name: '@src/money.js' }).click();
  const viewer = page.getByRole('complementary', { name: 'File viewer' });
  await expect(viewer).toContainText('export const add = (a, b) => a + b;');
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();
});

test('on a busy page, a letter typed right after a file is picked stays where it was typed', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await files(workspace, { 'src/money.js': '' });
  await configureProvider(page, mock.baseUrl);
  // Frames 300 ms apart, as on a loaded machine: the key presses below land before the next frame.
  await page.evaluate(`{
    const raf = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (callback) => (setTimeout(() => raf(callback), 300), 0);
  }`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.pressSequentially('See @srcmoneyjs');
  await expect(page.getByRole('listbox', { name: 'Workspace files' }).getByRole('option', { selected: true })).toContainText('money.js');
  await box.press('Enter');
  await box.press('n');
  await page.waitForTimeout(700); // the frames that were due have run
  await box.pressSequentially('ow');
  await expect(box).toHaveValue('See @src/money.js now');
});

for (const size of SIZES) {
  test(`at ${size.width}×${size.height} the picker and the slash menu fit the composer's width`, async ({ deft, mock, workspace }) => {
    const { page } = deft;
    await page.setViewportSize(size);
    await files(workspace, { 'packages/core/src/very/deeply/nested/folder/structure/with-a-long-file-name-for-testing.ts': '' });
    await configureProvider(page, mock.baseUrl);
    const box = page.getByRole('textbox', { name: 'Message' });
    const composer = page.locator('form.composer');
    await box.pressSequentially('@longfile');
    const option = page.getByRole('listbox', { name: 'Workspace files' }).getByRole('option').first();
    await expectInView(page, option, composer);
    await box.fill('/');
    const menu = page.getByRole('listbox', { name: 'Commands and skills' });
    for (const command of ['/plan', '/compact', '/undo', '/model']) {
      const item = menu.getByRole('option', { name: new RegExp(`^${command} `) });
      await expect(item).toContainText('Command');
      await expectInView(page, item.locator('.skill-badge'), menu);
    }
    // Skills are listed after the seven commands (/plan, /compact, /undo, /rewind, /changes, /model, /memory).
    await expect(menu.getByRole('option').nth(7)).toContainText('/commit');
  });
}

test('a dropped text file is mentioned like a workspace file and the model gets its path', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('Summarise ');
  await dropFile(page, 'meeting notes.txt', 'Ship on Friday.\n');
  await expect(box).toHaveValue('Summarise @meeting_notes.txt ');
  await expect(page.locator('.mention-chip')).toHaveText('@meeting_notes.txt');
  mock.enqueue(answer('Ship on Friday.'));
  await box.press('Enter');
  await expect(page.getByText('Ship on Friday.').last()).toBeVisible();
  const text = userTexts(mock.requests.at(-1)).at(-1)!;
  expect(text).toMatch(/- @meeting_notes\.txt \(a file the user dropped in\): \/.*\/attachments\/[0-9a-f]{8}-meeting_notes\.txt$/);
});

test('↑ and ↓ recall earlier prompts of the session, and bring back the draft', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'first prompt');
  await expect(page.getByText('Echo: first prompt')).toBeVisible();
  await send(page, 'second prompt');
  await expect(page.getByText('Echo: second prompt')).toBeVisible();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.press('ArrowUp');
  await expect(box).toHaveValue('second prompt');
  await box.press('ArrowUp');
  await expect(box).toHaveValue('first prompt');
  await box.press('ArrowDown');
  await expect(box).toHaveValue('second prompt');
  await box.press('ArrowDown');
  await expect(box).toHaveValue('');
  // A draft comes back after going through history; typing in a recalled prompt keeps the caret's keys.
  await box.fill('draft');
  await box.press('Home');
  await box.press('ArrowUp');
  await expect(box).toHaveValue('second prompt');
  await box.press('End');
  await box.press('ArrowDown');
  await expect(box).toHaveValue('draft');
});

/** The edits the page's browser keeps for Ctrl+Z (Chromium's blink::UndoStep objects, from a heap snapshot). */
async function undoSteps(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  const chunks: string[] = [];
  cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => void chunks.push(chunk));
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  await cdp.detach();
  const snapshot = JSON.parse(chunks.join('')) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[]; strings: string[] };
  const fields = snapshot.snapshot.meta.node_fields;
  const name = fields.indexOf('name');
  let count = 0;
  for (let i = name; i < snapshot.nodes.length; i += fields.length) if (snapshot.strings[snapshot.nodes[i]!] === 'blink::UndoStep') count++;
  return count;
}

test('each sent message leaves a fresh, focused box: what was typed is not kept for an undo that cannot reach it', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const box = page.getByRole('textbox', { name: 'Message' });
  const kept = await undoSteps(page);
  for (const prompt of ['first prompt', 'second prompt', 'third prompt']) {
    await box.pressSequentially(prompt);
    await box.press('Enter');
    await expect(page.getByText(`Echo: ${prompt}`)).toBeVisible();
    await expect(box).toHaveValue('');
    await expect(box).toBeFocused();
  }
  // Typing goes on in the box, and ↑ still recalls what was sent.
  await page.keyboard.press('ArrowUp');
  await expect(box).toHaveValue('third prompt');
  await page.keyboard.press('ArrowDown');
  await expect(box).toHaveValue('');
  // Three messages typed and sent; the browser holds no more edits than before them.
  expect(await undoSteps(page)).toBeLessThanOrEqual(kept);
});

test("the model chip switches the model for this session's next turn; /model <name> does too", async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const chip = page.getByRole('button', { name: /^Model: mock-model$/ });
  await chip.click();
  const menu = page.getByRole('dialog', { name: 'Model for this session' });
  await menu.getByRole('button', { name: 'mock-model-large' }).click();
  await expect(menu).toBeHidden();
  await expect(page.getByRole('button', { name: /^Model: mock-model-large$/ })).toBeFocused();
  await send(page, 'which model?');
  await expect(page.getByText('Echo: which model?')).toBeVisible();
  expect(mock.requests.at(-1)!.body.model).toBe('mock-model-large');

  await send(page, '/model my-typed-model');
  await expect(page.getByRole('button', { name: /^Model: my-typed-model$/ })).toBeVisible();
  await send(page, 'and now?');
  await expect(page.getByText('Echo: and now?')).toBeVisible();
  expect(mock.requests.at(-1)!.body.model).toBe('my-typed-model');

  // Back to the provider's model.
  await page.getByRole('button', { name: /^Model: my-typed-model$/ }).click();
  await page.getByRole('button', { name: /Back to the provider's model/ }).click();
  await expect(page.getByRole('button', { name: /^Model: mock-model$/ })).toBeVisible();
});

test('the controls under the message box never overlap each other or Send, down to a 480 px window', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  // A long model name makes the chip as wide as it gets.
  await send(page, '/model a-rather-long-model-name-for-this-session');
  await expect(page.getByRole('button', { name: /^Model: a-rather-long/ })).toBeVisible();
  for (const width of [1280, 900, 540, 480]) {
    await page.setViewportSize({ width, height: 720 });
    // Below 1000 px the sidebar becomes a drawer: wait until the box has stopped moving before measuring.
    await expect
      .poll(async () => {
        const before = await page.locator('.composer').boundingBox();
        await page.waitForTimeout(150);
        const after = await page.locator('.composer').boundingBox();
        return Boolean(before && after && before.x === after.x && before.width === after.width);
      })
      .toBe(true);
    const form = (await page.locator('.composer').boundingBox())!;
    const parts: Array<{ name: string; x: number; y: number; right: number; bottom: number }> = [];
    for (const part of await page.locator('.composer-controls > *, .composer-actions > button, .composer-run-actions > *').all()) {
      const box = await part.boundingBox();
      if (!box || box.width === 0) continue;
      const name = (await part.getAttribute('aria-label')) ?? (await part.innerText()).trim();
      parts.push({ name, x: box.x, y: box.y, right: box.x + box.width, bottom: box.y + box.height });
    }
    const boxes = { form: { x: form.x, right: form.x + form.width }, parts };
    expect(boxes.parts.length).toBeGreaterThanOrEqual(7);
    for (const [i, a] of boxes.parts.entries()) {
      expect(a.x, `${a.name} inside the box at ${width} px`).toBeGreaterThanOrEqual(boxes.form.x);
      expect(a.right, `${a.name} inside the box at ${width} px`).toBeLessThanOrEqual(boxes.form.right);
      for (const b of boxes.parts.slice(i + 1)) {
        const apart = a.right <= b.x || b.right <= a.x || a.bottom <= b.y || b.bottom <= a.y;
        expect(apart, `${a.name} and ${b.name} overlap at ${width} px`).toBe(true);
      }
    }
  }
});
