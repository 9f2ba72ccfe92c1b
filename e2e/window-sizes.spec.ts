import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { answer, call, toolStep } from './fixtures/screens';

// Issue 18, item 3: the sidebar collapses (Ctrl+B) and becomes a drawer on narrow windows; the column
// widens on wide screens; the diff's layout follows its card's width; nothing overflows.

test.use({ permissionMode: 'yolo' });

/** A turn of a few model steps, on a machine that may be busy. */
const SLOW = { timeout: 30_000 };

async function noHorizontalOverflow(page: Page): Promise<void> {
  expect(await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth)).toBeLessThanOrEqual(0);
}

test('below 1000 px the sidebar is a drawer opened from the menu button: sessions, Skills and Settings in reach', async ({ deft, mock }) => {
  const { page } = deft;
  await page.setViewportSize({ width: 900, height: 700 });
  await configureProvider(page, mock.baseUrl);
  await send(page, 'first prompt');
  await expect(page.getByText('Echo: first prompt')).toBeVisible(SLOW);
  await page
    .getByRole('button', { name: 'New session' })
    .or(page.getByRole('button', { name: 'Show sidebar' }))
    .first()
    .waitFor();
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  await expect(sidebar).toBeHidden();
  const menu = page.getByRole('button', { name: 'Show sidebar' });
  const box = await menu.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  await menu.click();
  await expect(sidebar).toBeVisible();
  for (const name of ['New session', 'Skills', 'Settings']) await expect(sidebar.getByRole('button', { name, exact: true })).toBeInViewport();
  await page.keyboard.press('Escape');
  await expect(sidebar).toBeHidden();
  await expect(menu).toBeFocused();

  // Ctrl+B opens it too; starting a new session from it closes it.
  await page.keyboard.press('Control+b');
  await expect(sidebar).toBeVisible();
  await sidebar.getByRole('button', { name: 'New session', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'What should we work on?' })).toBeVisible();
  await expect(sidebar).toBeHidden();
  await page.keyboard.press('Control+b');
  await sidebar.getByRole('button', { name: /^first prompt/ }).click();
  await expect(sidebar).toBeHidden();
  await expect(page.getByText('Echo: first prompt')).toBeVisible();
  await noHorizontalOverflow(page);
});

test('Ctrl+B hides and shows the docked sidebar on a wide window, and the choice is remembered', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const sidebar = page.getByRole('navigation', { name: 'Sessions' });
  await expect(sidebar).toBeVisible();
  await expect(page.getByRole('button', { name: 'Show sidebar' })).toHaveCount(0);
  const composerBefore = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!;
  await page.keyboard.press('Control+b');
  await expect(sidebar).toBeHidden();
  await expect(page.getByRole('button', { name: 'Show sidebar' })).toBeVisible();
  // The conversation takes the room (centred in a wider main area).
  const composerAfter = (await page.getByRole('textbox', { name: 'Message' }).boundingBox())!;
  expect(composerAfter.x).toBeLessThan(composerBefore.x);
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect(sidebar).toBeHidden();
  await page.getByRole('button', { name: 'Show sidebar' }).click();
  await expect(sidebar).toBeVisible();
  await page.getByRole('button', { name: 'Hide sidebar' }).click();
  await expect(sidebar).toBeHidden();
});

test('the column is wider on a wide screen, and a diff goes side by side only when its card has the room', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  const before = Array.from({ length: 12 }, (_, i) => `export const value${i} = ${i};`).join('\n') + '\n';
  await writeFile(join(workspace, 'values.ts'), before);
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    toolStep(call('Read', { path: 'values.ts' })),
    toolStep(call('Edit', { path: 'values.ts', old_string: 'value3 = 3', new_string: 'value3 = 30' })),
    answer('Changed value3.'),
  );
  await send(page, 'Change value3');
  await expect(page.getByText('Changed value3.')).toBeVisible(SLOW);
  const edit = page.getByRole('group', { name: 'Edit tool call' });
  const layout = edit.getByRole('group', { name: 'Diff layout' });
  const composer = page.getByRole('textbox', { name: 'Message' });

  await expect(layout.getByRole('button', { name: 'Unified' })).toHaveAttribute('aria-pressed', 'true');
  const narrow = (await composer.boundingBox())!.width;

  await page.setViewportSize({ width: 1920, height: 1080 });
  await expect(layout.getByRole('button', { name: 'Split' })).toHaveAttribute('aria-pressed', 'true');
  expect((await composer.boundingBox())!.width).toBeGreaterThan(narrow + 200);
  // The user's choice of split still gives way where the card is too narrow for it.
  await layout.getByRole('button', { name: 'Split' }).click();
  await page.setViewportSize({ width: 900, height: 700 });
  await expect(layout.getByRole('button', { name: 'Split' })).toHaveAttribute('aria-pressed', 'true');
  await page.setViewportSize({ width: 760, height: 700 });
  await expect(layout.getByRole('button', { name: 'Unified' })).toHaveAttribute('aria-pressed', 'true');
  await expect(layout.getByRole('button', { name: 'Split' })).toBeDisabled();
  await noHorizontalOverflow(page);
});

test('at 900 px the slash menu keeps every source badge inside its row', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  const { mkdir } = await import('node:fs/promises');
  await mkdir(join(workspace, '.deft/skills/a-skill-with-a-rather-long-name'), { recursive: true });
  await writeFile(
    join(workspace, '.deft/skills/a-skill-with-a-rather-long-name/SKILL.md'),
    '---\nname: a-skill-with-a-rather-long-name\ndescription: Does something useful with a description long enough to need cutting at this width.\nargument-hint: "<first-argument> [second-argument] [third-argument]"\n---\nDo it.\n',
  );
  await page.setViewportSize({ width: 900, height: 700 });
  await configureProvider(page, mock.baseUrl);
  await page.getByRole('textbox', { name: 'Message' }).fill('/');
  const menu = page.getByRole('listbox', { name: 'Commands and skills' });
  await expect(menu).toBeVisible();
  const options = menu.getByRole('option');
  const count = await options.count();
  expect(count).toBeGreaterThan(1);
  for (let i = 0; i < count; i++) {
    const row = (await options.nth(i).boundingBox())!;
    const badge = (await options.nth(i).locator('.skill-badge').boundingBox())!;
    expect(badge.x + badge.width).toBeLessThanOrEqual(row.x + row.width);
  }
  await noHorizontalOverflow(page);
});
