import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { configureProvider, expect, send, startWebHost, stopChild, test } from './fixtures/deft';
import { createWorktree, git, inRepository, worktreeFolder } from './fixtures/repository';
import { SIZES, answer } from './fixtures/daily';

// Issue 18 item 9: sessions — rename, search (titles and text), export Markdown and raw JSONL; long titles.

const LONG = 'Refactor the money module so rounding happens once, at the very edge';

test('rename a session from its menu; the name stays after a reload', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'first prompt');
  await expect(page.getByText('Echo: first prompt')).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  await sidebar.getByRole('button', { name: 'Actions for first prompt' }).click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  const field = sidebar.getByRole('textbox', { name: 'New title for first prompt' });
  await expect(field).toBeFocused();
  await field.fill('Money rounding');
  await field.press('Enter');
  await expect(sidebar.getByRole('button', { name: /^Money rounding/ })).toBeVisible();
  await expect(sidebar.getByRole('button', { name: 'Actions for Money rounding' })).toBeFocused();
  // Escape leaves the title as it was.
  await sidebar.getByRole('button', { name: 'Actions for Money rounding' }).click();
  await page.getByRole('menuitem', { name: 'Rename' }).click();
  await sidebar.getByRole('textbox', { name: 'New title for Money rounding' }).fill('Something else');
  await page.keyboard.press('Escape');
  await expect(sidebar.getByRole('button', { name: /^Money rounding/ })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^Money rounding/ })).toBeVisible();
});

test('search finds sessions by title at once and by what was said in them, with the passage', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(answer('The interest rate lives in rates.ts, next to the ledger.'));
  await send(page, 'Where is the rate?');
  await expect(page.getByText('next to the ledger.')).toBeVisible();
  await page.getByRole('button', { name: 'New session' }).click();
  await send(page, 'Tidy the README');
  await expect(page.getByText('Echo: Tidy the README')).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  const search = sidebar.getByRole('searchbox', { name: 'Search sessions' });
  await search.fill('readme');
  const results = sidebar.getByRole('list', { name: 'Search results' });
  await expect(results.getByRole('button')).toHaveCount(1);
  await expect(results.getByRole('button').first()).toContainText('Tidy the README');
  await search.fill('LEDGER');
  await expect(results.getByRole('button')).toHaveCount(1);
  await expect(results.getByRole('button').first()).toContainText('Where is the rate?');
  await expect(results.locator('.session-snippet mark')).toHaveText('ledger');
  await expect(sidebar.getByRole('status')).toHaveText(/1 session found/);
  await search.fill('.*');
  await expect(sidebar.getByRole('status')).toHaveText(/0 sessions found/);
  await search.fill('ledger');
  await results.getByRole('button').first().click();
  await expect(search).toHaveValue('');
  await expect(page.getByText('next to the ledger.')).toBeVisible();
});

test('export as Markdown and as the raw log, under names made from the title', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(answer('Here is **the plan**.'));
  await send(page, 'Plan the ../../etc/passwd release');
  await expect(page.getByText('the plan')).toBeVisible();
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  const actions = sidebar.getByRole('button', { name: /^Actions for Plan the/ });

  await actions.click();
  const markdown = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Export as Markdown' }).click();
  const md = await markdown;
  expect(md.suggestedFilename()).toMatch(/^Plan-the-etc-passwd-release-[\w-]+\.md$/);
  const text = await readFile(await md.path(), 'utf8');
  expect(text).toContain('# Plan the ../../etc/passwd release');
  expect(text).toContain('## You\n\nPlan the ../../etc/passwd release');
  expect(text).toContain('### Deft\n\nHere is **the plan**.');

  await actions.click();
  const raw = page.waitForEvent('download');
  await page.getByRole('menuitem', { name: 'Export raw log (JSONL)' }).click();
  const jsonl = await readFile(await (await raw).path(), 'utf8');
  const records = jsonl
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { r: string });
  expect(records[0]).toMatchObject({ r: 'header' });
  expect(records.some((r) => r.r === 'event')).toBe(true);
});

for (const size of SIZES) {
  test(`at ${size.width}×${size.height} a long title takes two lines before it is cut, with the whole title as tooltip`, async ({ deft, mock }) => {
    const { page } = deft;
    await page.setViewportSize(size);
    await configureProvider(page, mock.baseUrl);
    await send(page, LONG);
    await expect(page.getByText(`Echo: ${LONG}`)).toBeVisible();
    // Below 1000 px the sidebar is a drawer: open it from the menu button.
    if (size.width < 1000) await page.getByRole('button', { name: 'Show sidebar' }).click();
    const row = page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: new RegExp(`^${LONG.slice(0, 20)}`) });
    await expect(row).toHaveAttribute('title', LONG);
    const title = row.locator('.session-title');
    const box = (await title.boundingBox())!;
    const line = await title.evaluate((el) => parseFloat(el.ownerDocument.defaultView!.getComputedStyle(el).lineHeight));
    // More than 25 characters are shown: two lines of the sidebar's width.
    expect(box.height).toBeGreaterThan(line * 1.5);
    expect(box.height).toBeLessThan(line * 2.5);
    const shown = await title.evaluate((el) => el.getBoundingClientRect().width);
    expect(shown).toBeGreaterThan(150);
  });
}

inRepository('a session in a worktree: made from the sidebar, merged back from the Worktrees view', async ({ deft, mock, workspace, home }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  const dialog = await createWorktree(page, 'login');
  // The web host runs the worktree's core beside this one: the dialog offers to switch to it, or to stay.
  await expect(dialog.getByRole('status')).toContainText('Created deft/login from main');
  await expect(dialog.getByRole('status')).toContainText('beside this folder');
  await dialog.getByRole('button', { name: 'Stay here' }).click();

  // The session's work in its worktree (a session there runs in a window on that folder).
  await writeFile(join(await worktreeFolder(home, 'login'), 'app.txt'), 'one\nTWO\n');

  await sidebar.getByRole('button', { name: /^Worktrees/ }).click();
  const view = page.getByRole('dialog', { name: 'Worktrees' });
  const card = view.getByRole('listitem').filter({ hasText: 'deft/login' });
  await expect(card).toContainText('1 changed file');
  await expect(card).toContainText('uncommitted changes');
  await card.getByRole('button', { name: 'Merge…' }).click();
  const merge = card.getByRole('form', { name: 'Merge deft/login' });
  // The model drafts the message from the diff (the mock model answers with what it was asked); it stays editable.
  await expect(merge.getByText('Drafted by the model from the diff against the base')).toBeVisible();
  await expect(merge.getByRole('textbox', { name: 'Commit message' })).toHaveValue(/merging the branch deft\/login onto main[\s\S]*app\.txt/);
  await merge.getByRole('textbox', { name: 'Commit message' }).fill('Remember where you were');
  await merge.getByRole('button', { name: 'Merge' }).click();
  await expect(card.getByRole('status')).toContainText('Merged deft/login onto main');
  expect(await readFile(join(workspace, 'app.txt'), 'utf8')).toBe('one\nTWO\n');
  expect(git(workspace, 'log', '-1', '--format=%s').toString().trim()).toBe('Remember where you were');
  // Merging it again: nothing to merge, said so.
  await card.getByRole('button', { name: 'Merge…' }).click();
  await card.getByRole('form', { name: 'Merge deft/login' }).getByRole('button', { name: 'Merge' }).click();
  await expect(card.getByRole('status')).toContainText('Nothing to merge');
});

inRepository(
  'a worktree session waits for you while another runs, both shown in the sidebar; merged from its Changes view',
  async ({ deft, mock, workspace, home }) => {
    test.setTimeout(120_000);
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    const dialog = await createWorktree(page, 'side');
    await expect(dialog.getByRole('status')).toContainText('Created deft/side from main');
    await dialog.getByRole('button', { name: 'Stay here' }).click();
    // A second web host on its folder, same home (as a window of its own in the desktop app: another process).
    const path = await worktreeFolder(home, 'side');
    const host = await startWebHost(path, home, () => {});
    try {
      const there = await page.context().newPage();
      await there.goto(host.url);
      // Its session asks before writing: it waits for you there…
      mock.enqueue(toolStep(callChunk('Write', { path: 'login.txt', content: 'back to where you were\n' })));
      await send(there, 'Remember where you were');
      const approval = there.getByRole('region', { name: 'Approval needed' });
      await expect(approval).toBeVisible();
      // …while a session here runs: this window's sidebar shows both.
      mock.enqueue({ ...textReply('Done here.'), delayMs: 6_000 });
      // The main checkout's window in front (its sidebar polls while it is visible).
      await page.bringToFront();
      await send(page, 'Work here meanwhile');
      await expect(sidebar.getByRole('button', { name: /^Work here meanwhile/ }).getByRole('progressbar', { name: 'Working' })).toBeVisible();
      const row = sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: /^Remember where you were/ });
      await expect(row).toContainText('deft/side', { timeout: 15_000 });
      await expect(row).toContainText('waiting for you', { timeout: 15_000 });
      mock.enqueue(textReply('Written.'));
      await approval.getByRole('button', { name: /Approve once/ }).click();
      await expect(there.getByText('Written.')).toBeVisible();
      await expect(page.getByText('Done here.')).toBeVisible({ timeout: 15_000 });
      await expect(row).not.toContainText('waiting for you', { timeout: 15_000 });
      await expect(row).toContainText('1 changed file', { timeout: 15_000 });

      // Its Changes view, from the session's header: the diff against main, then Merge.
      await there.bringToFront();
      await there.getByRole('button', { name: /^Changes on deft\/side/ }).click();
      const changes = there.getByRole('dialog', { name: 'Changes on deft/side' });
      await expect(changes.getByRole('navigation', { name: 'Changed files' })).toContainText('login.txt');
      await expect(changes.getByRole('region', { name: 'Changes to login.txt' })).toContainText('back to where you were');
      await changes.getByRole('button', { name: 'Merge…' }).click();
      const merge = changes.getByRole('form', { name: 'Merge deft/side' });
      await expect(merge.getByText('Drafted by the model from the diff against the base')).toBeVisible();
      await merge.getByRole('textbox', { name: 'Commit message' }).fill('Remember where you were (side)');
      await merge.getByRole('button', { name: 'Merge' }).click();
      await expect(changes.getByRole('status')).toContainText('Merged deft/side onto main');
      await expect(changes.getByText('No changes against the base: nothing to merge.')).toBeVisible();
      expect(await readFile(join(workspace, 'login.txt'), 'utf8')).toBe('back to where you were\n');
      expect(git(workspace, 'log', '-1', '--format=%s').toString().trim()).toBe('Remember where you were (side)');
    } finally {
      await stopChild(host.child);
    }
  },
);

inRepository('one window, two cores: a worktree session runs while the window shows the main checkout, and back', async ({ deft, mock }) => {
  test.setTimeout(90_000);
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  const dialog = await createWorktree(page, 'para');
  await dialog.getByRole('button', { name: 'Switch to deft/para' }).click();
  // This window now shows the worktree's core: the bar says which, and leads back.
  const bar = sidebar.getByRole('group', { name: 'Where this window is' });
  await expect(bar).toContainText('deft/para');
  // A slow turn there; the window goes back to the main checkout while it runs.
  mock.enqueue({ ...textReply('Done in the worktree.'), delayMs: 5_000 });
  await send(page, 'Work in the worktree');
  await expect(sidebar.getByRole('button', { name: /^Work in the worktree/ }).getByRole('progressbar', { name: 'Working' })).toBeVisible();
  await bar.getByRole('button', { name: '← Main checkout' }).click();
  await expect(bar).toBeHidden();
  // A turn here meanwhile; the worktree's row shows its session running there, then done — nothing stopped it.
  mock.enqueue(textReply('Done here.'));
  await send(page, 'Work here');
  await expect(page.getByText('Done here.')).toBeVisible();
  const row = sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: /^Work in the worktree/ });
  await expect(row).toContainText('deft/para');
  await expect(row).toContainText('running', { timeout: 15_000 });
  await expect(row).not.toContainText('running', { timeout: 30_000 });
  await expect(sidebar.getByRole('button', { name: /^Work here/ })).toBeVisible();
  // Back in the worktree: its session has its answer.
  await row.click();
  await expect(bar).toContainText('deft/para');
  await sidebar.getByRole('button', { name: /^Work in the worktree/ }).click();
  await expect(page.getByText('Done in the worktree.')).toBeVisible();
});

inRepository(
  'from the main checkout: a worktree’s Changes view from its sidebar row; a conflict handed to it waits there until it is opened',
  async ({ deft, mock, workspace, home }) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    const sidebar = page.getByRole('navigation', { name: 'Sessions' });
    const dialog = await createWorktree(page, 'edge');
    await expect(dialog.getByRole('status')).toContainText('Created deft/edge from main');
    await dialog.getByRole('button', { name: 'Stay here' }).click();
    // Its work, and another change to the same line on main meanwhile.
    await writeFile(join(await worktreeFolder(home, 'edge'), 'app.txt'), 'one\nEDGE\n');
    await writeFile(join(workspace, 'app.txt'), 'one\nMAIN\n');
    git(workspace, 'commit', '-qam', 'main moved');

    await sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: 'Changes on deft/edge' }).click();
    const changes = page.getByRole('dialog', { name: 'Changes on deft/edge' });
    await expect(changes.getByRole('region', { name: 'Changes to app.txt' })).toContainText('EDGE');
    await expect(changes.getByRole('button', { name: 'Open' })).toBeVisible();
    await changes.getByRole('button', { name: 'Merge…' }).click();
    await changes.getByRole('textbox', { name: 'Commit message' }).fill('Edge');
    await changes.getByRole('form', { name: 'Merge deft/edge' }).getByRole('button', { name: 'Merge' }).click();
    await expect(changes.getByRole('alert')).toContainText('app.txt');
    await changes.getByRole('group', { name: 'Resolve the conflict' }).getByRole('button', { name: 'Resolve in that session' }).click();
    await expect(changes.getByRole('status')).toContainText('deft worktrees resolve edge');
    expect(await readFile(join(workspace, 'app.txt'), 'utf8')).toBe('one\nMAIN\n');
    await expect(sidebar.getByRole('list', { name: 'In worktrees' }).getByRole('button', { name: /^New session/ })).toContainText('conflict to resolve', {
      timeout: 15_000,
    });
    // One click there: this window shows the worktree's core in place, and its session takes the conflict and runs.
    mock.enqueue(textReply('Resolved in the worktree.'));
    await changes.getByRole('status').getByRole('button', { name: 'Switch to deft/edge →' }).click();
    await expect(sidebar.getByRole('group', { name: 'Where this window is' })).toContainText('deft/edge');
    await expect(page.getByText('Resolved in the worktree.')).toBeVisible({ timeout: 30_000 });
    expect(await readFile(join(workspace, 'app.txt'), 'utf8')).toBe('one\nMAIN\n');
  },
);
