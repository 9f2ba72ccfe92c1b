import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { notificationTitles, recordNotifications } from './fixtures/notifications';
import { createWorktree, inRepository, worktreeFolder } from './fixtures/repository';

// Issue 30: several cores in one window (the web host runs the main checkout's and each worktree's side by side).
// Switching is in place (no reload); a request waiting in another core shows here, with its notification.

const SIZES = [
  { width: 1280, height: 800 },
  { width: 900, height: 700 },
];

/** Screenshots in both themes at both sizes (the sidebar drawer opened below 1000 px), kept for review. */
async function shoot(page: Page, testInfo: TestInfo, name: string, openSidebar: boolean): Promise<void> {
  const dir = process.env.DEFT_SHOTS_DIR ?? testInfo.outputPath('shots');
  await mkdir(dir, { recursive: true });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const drawer = openSidebar && size.width < 1000;
      if (drawer) await page.getByRole('button', { name: 'Show sidebar' }).click();
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(dir, `${name}-${size.width}x${size.height}-${scheme}.png`) });
      if (drawer) await page.keyboard.press('Escape');
    }
  }
  await page.setViewportSize(SIZES[0]!);
  await page.emulateMedia({ colorScheme: 'light' });
}

inRepository(
  'one window: an approval waiting in a worktree shows in the main checkout (badge, list, notification); switched to in place, approved, and back',
  async ({ deft, mock, workspace, home }, testInfo) => {
    test.setTimeout(150_000);
    const { page } = deft;
    // The window is in front: a request in ANOTHER checkout is notified all the same.
    await recordNotifications(page);
    await page.reload();
    await configureProvider(page, mock.baseUrl);
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    const dialog = await createWorktree(page, 'para');

    // From here on, no page load may happen: switching is in place.
    let loads = 0;
    page.on('load', () => void loads++);
    await page.evaluate('window.stillHere = "yes"');
    const noReload = async () => {
      expect(loads).toBe(0);
      expect(await page.evaluate<string | undefined>('window.stillHere')).toBe('yes');
    };

    await dialog.getByRole('button', { name: 'Switch to deft/para' }).click();
    const bar = sidebar.getByRole('group', { name: 'Where this window is' });
    await expect(bar).toContainText('deft/para');
    expect(new URL(page.url()).hash).toBe('#worktree=para');
    await noReload();

    // A turn in the worktree whose Write asks for approval a few seconds from now; the window goes back meanwhile.
    mock.enqueue(
      { ...toolStep(callChunk('Write', { path: 'para.txt', content: 'from the worktree\n' })), delayMs: 3_000 },
      textReply('Written in the worktree.'),
    );
    await send(page, 'Write para.txt');
    await expect(sidebar.getByRole('button', { name: /^Write para\.txt/ }).getByRole('progressbar', { name: 'Working' })).toBeVisible();
    await bar.getByRole('button', { name: /Main checkout/ }).click();
    await expect(bar).toBeHidden();
    expect(new URL(page.url()).hash).toBe('');
    await noReload();

    // The main checkout's view: what waits there is listed (one click there), its row has a badge, a notification came.
    const waiting = sidebar.getByRole('region', { name: 'Waiting for you in other checkouts' });
    await expect(waiting).toContainText('Approval waiting in deft/para', { timeout: 20_000 });
    await expect(waiting).toContainText('Write para.txt: Write');
    const row = sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: /Write para\.txt/ });
    await expect(row.locator('.waiting-badge')).toContainText('1');
    await expect(row).toHaveAccessibleName(/^an approval waiting for you/);
    const notified = () => notificationTitles(page);
    await expect.poll(notified).toEqual(['Deft waits for your approval in deft/para']);
    await shoot(page, testInfo, 'waiting-elsewhere', true);

    // One click: the window switches to the worktree (no reload) and opens the session that asks.
    await waiting.getByRole('button', { name: /Approval waiting in deft\/para/ }).click();
    await expect(bar).toContainText('deft/para');
    await expect(waiting).toBeHidden();
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await expect(approval).toBeVisible();
    await expect(approval).toContainText('Asked by the session Write para.txt · in the worktree deft/para');
    await noReload();
    await shoot(page, testInfo, 'approval-in-worktree', false);
    await approval.getByRole('button', { name: /Approve once/ }).click();
    await expect(page.getByText('Written in the worktree.')).toBeVisible({ timeout: 15_000 });
    const folder = await worktreeFolder(home, 'para');
    expect(await readFile(join(folder, 'para.txt'), 'utf8')).toBe('from the worktree\n');
    await expect(readFile(join(workspace, 'para.txt'))).rejects.toThrow();

    // Back (the browser's Back too) returns to the main checkout, in place; Forward to the worktree again.
    await page.goBack();
    await expect(bar).toBeHidden();
    await expect(sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: /Write para\.txt/ })).toBeVisible();
    await page.goForward();
    await expect(bar).toContainText('deft/para');
    await expect(sidebar.getByRole('button', { name: /^Write para\.txt/ })).toBeVisible();
    await bar.getByRole('button', { name: /Main checkout/ }).click();
    await expect(bar).toBeHidden();
    await noReload();
    // Only that one notification: what waited was seen, and nothing else asked.
    expect(await notified()).toEqual(['Deft waits for your approval in deft/para']);
  },
);

inRepository('a worktree shows the main checkout’s sessions one by one: running, waiting for you, then done', async ({ deft, mock }, testInfo) => {
  test.setTimeout(120_000);
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await page.getByLabel('Permission mode').selectOption('ask');
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  // Two sessions in the main checkout: one asks before writing (its answer, after the approval, is the mock's echo),
  // one works slowly.
  mock.enqueue(toolStep(callChunk('Write', { path: 'main.txt', content: 'main\n' })));
  await send(page, 'Ask in main');
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeVisible({ timeout: 15_000 });
  await sidebar.getByRole('button', { name: 'New session', exact: true }).click();
  mock.enqueue({ ...textReply('Slow done.'), delayMs: 20_000 });
  await send(page, 'Slow in main');
  const dialog = await createWorktree(page, 'look');
  await dialog.getByRole('button', { name: 'Switch to deft/look' }).click();
  const bar = sidebar.getByRole('group', { name: 'Where this window is' });
  await expect(bar).toContainText('deft/look');
  // The bar lists the main checkout's sessions with their state, the asking one first; its badge counts the approval.
  const mainSessions = bar.getByRole('list', { name: "The main checkout's sessions" });
  await expect(mainSessions.getByRole('button', { name: /Ask in main/ })).toContainText('waiting for you', { timeout: 15_000 });
  await expect(mainSessions.getByRole('button', { name: /Slow in main/ })).toContainText('running');
  await expect(bar.getByRole('button', { name: /Main checkout/ }).locator('.waiting-badge')).toContainText('1');
  await shoot(page, testInfo, 'main-sessions-from-worktree', true);
  // The slow one ends there by itself: done.
  await expect(mainSessions.getByRole('button', { name: /Slow in main/ })).toContainText('done', { timeout: 45_000 });
  // A click goes back and opens that session.
  await mainSessions.getByRole('button', { name: /Ask in main/ }).click();
  await expect(bar).toBeHidden();
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
});
