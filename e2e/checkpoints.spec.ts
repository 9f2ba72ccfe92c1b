import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import type { MockChunk } from '../test-support/mock-model-server';
import { storeDir } from '../main/agent/capabilities/checkpoints/store/places';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Checkpoints through the real web host: a workspace that is not a git repository, changed by Write and
// by shell commands; Rewind here with its preview, Undo rewind, and the review pane reverting one hunk.
test.use({ permissionMode: 'yolo', checkpoints: true });
// Each test starts a host and runs turns whose every step is followed by a checkpoint (a few git processes);
// on a shared two-core machine that takes longer than the default minute, though each step is quick.
test.describe.configure({ timeout: 150_000 });

/** A screenshot attached to the report and kept in the test's output folder, at the window size given. */
async function shot(page: Page, testInfo: TestInfo, name: string, size?: { width: number; height: number }) {
  const previous = page.viewportSize();
  if (size) await page.setViewportSize(size);
  const body = await page.screenshot({ path: testInfo.outputPath(`${name}.png`) });
  await testInfo.attach(name, { body, contentType: 'image/png' });
  if (size && previous) await page.setViewportSize(previous);
}

const call = (name: string, args: unknown): MockChunk => ({ toolCall: { name, args: JSON.stringify(args) } });
const toolStep = (...calls: MockChunk[]) => ({ chunks: [...calls, { finish: 'tool_calls' as const }] });
const answer = (text: string) => ({ chunks: [{ text }, { finish: 'stop' as const }] });

const lines = (n: number, change: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => change[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';
const ORIGINAL = lines(20);
const EDITED = lines(20, { 2: 'line 2 (edited)', 18: 'line 18 (edited)' });

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function workspaceFiles(workspace: string) {
  const read = (name: string) => readFile(join(workspace, name), 'utf8').catch(() => null);
  return { a: await read('a.txt'), b: await read('b.txt'), c: await read('c.txt'), d: await read('d.txt') };
}

/** Two prompts: the first reads only; the second changes four files, one with Write and three from the shell. */
async function changeTheWorkspace(page: Page, workspace: string, mock: { enqueue: (...steps: object[]) => void; baseUrl: string }) {
  await writeFile(join(workspace, 'a.txt'), ORIGINAL);
  await writeFile(join(workspace, 'b.txt'), 'base\n');
  await writeFile(join(workspace, 'c.txt'), 'delete me\n');
  await configureProvider(page, mock.baseUrl);
  await send(page, 'Look around');
  // The first turn waits for the workspace's first checkpoint (every file hashed once).
  await expect(page.getByText('Echo: Look around')).toBeVisible({ timeout: 30_000 });
  // The turn ends once its last checkpoint is taken; the composer sends nothing while one runs.
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 30_000 });

  mock.enqueue(
    toolStep(call('Read', { path: 'a.txt' })),
    toolStep(call('Write', { path: 'a.txt', content: EDITED })),
    toolStep(call('Bash', { command: "echo x >> b.txt && rm c.txt && printf 'new\\n' > d.txt", description: 'change files from the shell' })),
    answer('Four files changed.'),
  );
  await send(page, 'Change the files');
  // Four steps, each followed by a checkpoint.
  await expect(page.getByText('Four files changed.')).toBeVisible({ timeout: 30_000 });
  // The turn's summary comes from the checkpoints, so the shell's changes are listed too.
  const summary = page.getByRole('log', { name: 'Conversation' }).getByRole('group', { name: 'Changed files' });
  await expect(summary).toContainText('Changed 4 files', { timeout: 15_000 });
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0, { timeout: 30_000 });
  await expect(summary).toContainText('d.txt (added)');
  await expect(summary).toContainText('c.txt (deleted)');
  expect(await workspaceFiles(workspace)).toEqual({ a: EDITED, b: 'base\nx\n', c: null, d: 'new\n' });
  return summary;
}

test('Rewind here puts back what Write and the shell changed (no git repository), and Undo rewind brings it back', async ({
  deft,
  mock,
  workspace,
}, testInfo) => {
  const { page } = deft;
  expect(await exists(join(workspace, '.git'))).toBe(false);
  await changeTheWorkspace(page, workspace, mock);

  const prompt = page.locator('.message-user').filter({ hasText: 'Change the files' });
  await prompt.hover();
  await prompt.getByRole('button', { name: 'Rewind here' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt' });
  await expect(dialog.getByRole('radio', { name: /Code and conversation/ })).toBeChecked();
  const files = dialog.getByRole('list', { name: 'Files the rewind changes' });
  await expect(files.getByRole('listitem')).toHaveCount(4);
  await expect(files.getByRole('listitem').filter({ hasText: 'a.txt' })).toContainText('Restore');
  await expect(files.getByRole('listitem').filter({ hasText: 'b.txt' })).toContainText('Restore');
  await expect(files.getByRole('listitem').filter({ hasText: 'c.txt' })).toContainText('Bring back');
  await expect(files.getByRole('listitem').filter({ hasText: 'd.txt' })).toContainText('Remove');
  await expect(dialog).toContainText('4 files change — 2 restored, 1 removed, 1 brought back.');
  // The diff of a file, from now back to then.
  await files.getByRole('button', { name: /b\.txt/ }).click();
  await expect(files.locator('.diff-del').last()).toContainText('x');
  await shot(page, testInfo, 'rewind-preview-1280x800');
  await shot(page, testInfo, 'rewind-preview-900x700', { width: 900, height: 700 });

  await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
  await expect(dialog).toBeHidden();
  const notice = page.getByRole('status', { name: 'Rewind' });
  // Brought into view, though the rewind started from a prompt further up.
  await expect(notice.getByRole('button', { name: 'Undo rewind' })).toBeInViewport();
  await expect(notice).toContainText('Rewound code and conversation to just before prompt 2: 4 files put back; 1 turn taken out of the conversation.');
  // One notice for the rewind: not also the plain undo's "Files changed … were not restored" (issue 35).
  await expect(notice).toHaveCount(1);
  await expect(page.getByText(/were not restored/)).toHaveCount(0);
  expect(await workspaceFiles(workspace)).toEqual({ a: ORIGINAL, b: 'base\n', c: 'delete me\n', d: null });
  await expect(page.locator('.row-undone').filter({ hasText: 'Change the files' })).toContainText('Undone');
  await shot(page, testInfo, 'rewind-done-1280x800');
  await shot(page, testInfo, 'rewind-done-900x700', { width: 900, height: 700 });

  await notice.getByRole('button', { name: 'Undo rewind' }).click();
  await expect(notice).toContainText('Undone: Rewound');
  await expect(notice).toHaveCount(1);
  await expect(page.getByText(/were not restored/)).toHaveCount(0);
  await expect(notice.getByRole('button', { name: 'Undo rewind' })).toHaveCount(0);
  await expect.poll(() => workspaceFiles(workspace)).toEqual({ a: EDITED, b: 'base\nx\n', c: null, d: 'new\n' });
  await expect(page.locator('.row-undone').filter({ hasText: 'Change the files' })).toHaveCount(0);

  // The model reads the turn again after the undo.
  await send(page, 'Carry on');
  await expect(page.getByText('Echo: Carry on')).toBeVisible();
  const users = (mock.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === 'user').map((m) => String(m.content));
  expect(users.some((u) => u.includes('Change the files'))).toBe(true);
});

test('code only keeps the conversation; conversation only keeps the files (/rewind picker)', async ({ deft, mock, workspace }, testInfo) => {
  const { page } = deft;
  await changeTheWorkspace(page, workspace, mock);

  await send(page, '/rewind');
  const picker = page.getByRole('dialog', { name: 'Rewind to a prompt' });
  await expect(picker.getByRole('button', { name: /Change the files/ })).toContainText('4 files changed after it');
  await shot(page, testInfo, 'rewind-picker-1280x800');
  await picker.getByRole('button', { name: /Change the files/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Rewind to before this prompt' });
  await dialog.getByRole('radio', { name: /Conversation only/ }).check();
  await expect(dialog).toContainText('the model stops reading this prompt');
  await expect(dialog.getByRole('list', { name: 'Files the rewind changes' })).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Rewind' })).toContainText('Rewound conversation to just before prompt 2');
  expect(await workspaceFiles(workspace)).toEqual({ a: EDITED, b: 'base\nx\n', c: null, d: 'new\n' });
  await expect(page.locator('.row-undone').filter({ hasText: 'Change the files' })).toContainText('Undone');

  // Code only, to the same prompt: the files go back, the conversation is left as it is.
  const prompt = page.locator('.message-user').filter({ hasText: 'Change the files' });
  await prompt.hover();
  await prompt.getByRole('button', { name: 'Rewind here' }).click();
  await dialog.getByRole('radio', { name: /Code only/ }).check();
  await expect(dialog.getByRole('list', { name: 'Files the rewind changes' }).getByRole('listitem')).toHaveCount(4);
  await dialog.getByRole('button', { name: 'Rewind', exact: true }).click();
  await expect(page.getByRole('status', { name: 'Rewind' }).last()).toContainText('Rewound code to just before prompt 2: 4 files put back.');
  expect(await workspaceFiles(workspace)).toEqual({ a: ORIGINAL, b: 'base\n', c: 'delete me\n', d: null });
});

test('the review pane lists every change of a turn and reverts one hunk, undoably', async ({ deft, mock, workspace }, testInfo) => {
  const { page } = deft;
  const summary = await changeTheWorkspace(page, workspace, mock);

  await summary.getByRole('button', { name: 'Review' }).click();
  const pane = page.getByRole('dialog', { name: 'Review the changes of this turn' });
  const list = pane.getByRole('navigation', { name: 'Changed files' });
  await expect(list.getByRole('button')).toHaveCount(4);
  await expect(list.locator('[aria-current="true"]')).toContainText('a.txt');
  // J and K move between files.
  await page.keyboard.press('j');
  await expect(list.locator('[aria-current="true"]')).toContainText('b.txt');
  await page.keyboard.press('k');
  await expect(list.locator('[aria-current="true"]')).toContainText('a.txt');

  const detail = pane.getByRole('region', { name: 'Changes to a.txt' });
  await expect(detail).toContainText('Hunk 1 of 2');
  await shot(page, testInfo, 'review-pane-1280x800');
  await shot(page, testInfo, 'review-pane-900x700', { width: 900, height: 700 });
  await detail.getByRole('button', { name: 'Revert hunk 1 of a.txt' }).click();
  await expect(pane.getByRole('status')).toContainText('Reverted hunk 1 of a.txt.');
  const halfway = lines(20, { 18: 'line 18 (edited)' });
  expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe(halfway);
  // The pane shows what the turn still changes: the other hunk only, not a file "changed since".
  await expect(detail).toContainText('Hunk 1 of 1');
  await expect(detail).toContainText('line 18 (edited)');
  await expect(detail).not.toContainText('line 2 (edited)');
  await expect(detail).not.toContainText('This file changed again after this turn');

  await pane.getByRole('button', { name: 'Undo' }).click();
  await expect(pane.getByRole('status')).toHaveCount(0);
  await expect(detail).toContainText('Hunk 1 of 2');
  await expect(detail).toContainText('line 2 (edited)');
  expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe(EDITED);

  // A file the shell deleted: Revert file brings it back, and the turn no longer lists it (Undo stays at hand).
  await list.getByRole('button', { name: /c\.txt/ }).click();
  await pane.getByRole('region', { name: 'Changes to c.txt' }).getByRole('button', { name: 'Revert file' }).click();
  await expect.poll(() => readFile(join(workspace, 'c.txt'), 'utf8').catch(() => null)).toBe('delete me\n');
  await expect(list.getByRole('button')).toHaveCount(3);
  await expect(pane.getByRole('status')).toContainText('Reverted c.txt.');
  await pane.getByRole('button', { name: 'Undo' }).click();
  await expect(list.getByRole('button')).toHaveCount(4);
  await expect.poll(() => readFile(join(workspace, 'c.txt'), 'utf8').catch(() => null)).toBe(null);

  // Settings shows what the store takes, outside the workspace, with Clean up.
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('tab', { name: 'Checkpoints' }).click();
  const settings = page.getByRole('region', { name: 'Checkpoints' });
  await expect(settings).toContainText(/This workspace's checkpoints take .+ of 2 GiB/);
  await expect(settings.getByRole('button', { name: 'Clean up' })).toBeEnabled();
  await expect(settings.getByRole('checkbox', { name: /Review mode/ })).not.toBeChecked();
  await settings.scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'settings-checkpoints-1280x800');
});

test('Settings says when changes are found by scanning because the file watcher could not start', async ({ deft, mock, workspace, home }, testInfo) => {
  await writeFile(join(workspace, 'a.txt'), 'a\n');
  await configureProvider(deft.page, mock.baseUrl);
  // A session to show again: the window that opens it takes its warm-up checkpoint, which starts the watch.
  mock.enqueue(answer('Hello.'));
  await send(deft.page, 'Hi');
  await expect(deft.page.getByText('Hello.')).toBeVisible();
  // The watch's fence folder (beside the store) made a file: the watch cannot start when the window opens again.
  const fence = `${storeDir(home, workspace)}.fence`;
  await mkdir(dirname(fence), { recursive: true });
  await rm(fence, { recursive: true, force: true });
  await writeFile(fence, 'not a folder\n');
  await deft.restart();
  const { page } = deft;
  await expect(page.getByText('Hello.')).toBeVisible();
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('tab', { name: 'Checkpoints' }).click();
  const settings = page.getByRole('region', { name: 'Checkpoints' });
  await expect(settings.getByRole('note', { name: 'File watcher' })).toContainText(
    /Changes are found by scanning the workspace \(git status\), not by the file watcher/,
  );
  await settings.scrollIntoViewIfNeeded();
  await shot(page, testInfo, 'settings-checkpoints-watch-1280x800');
});
