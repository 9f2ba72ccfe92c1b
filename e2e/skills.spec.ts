import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { configureProvider, expect, test as base } from './fixtures/deft';

async function put(root: string, rel: string, text: string): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const GREET = `---
name: greet
description: Greet someone by name in a chosen style.
arguments: [who, style]
argument-hint: "<who> [style]"
---
Greet $who in a $style style.
`;

/** The workspace starts with one good skill and one broken one. */
const test = base.extend({
  workspace: async ({ workspace }, use) => {
    await put(workspace, '.deft/skills/greet/SKILL.md', GREET);
    await put(workspace, '.agents/skills/broken/SKILL.md', '---\nname: broken\ndescription: d\ntype: workflow\n---\n');
    await use(workspace);
  },
});

async function openGallery(page: Page) {
  await page.getByRole('button', { name: 'Skills', exact: true }).click();
  const gallery = page.getByRole('dialog', { name: 'Skills' });
  await expect(gallery).toBeVisible();
  return gallery;
}

function lastUserMessage(mock: { requests: Array<{ body: { messages: Array<{ role: string; content: unknown }> } }> }): string {
  const content = mock.requests
    .at(-1)
    ?.body.messages.filter((m) => m.role === 'user')
    .at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

test('the gallery shows workspace and built-in skills, filters them, and lists skipped files with reasons', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const gallery = await openGallery(page);
  const card = gallery.getByRole('article', { name: 'Skill greet' });
  await expect(card).toContainText('Greet someone by name in a chosen style.');
  await expect(card).toContainText('Workspace');
  await expect(card).toContainText('prompt');
  await expect(card).toContainText('/skill:greet');
  await expect(gallery.getByRole('article', { name: 'Skill review' })).toContainText('Built-in');

  const skipped = gallery.getByRole('region', { name: 'Skipped skills' });
  await expect(skipped).toContainText('.agents/skills/broken/SKILL.md');
  await expect(skipped).toContainText('unsupported type "workflow"');

  await gallery
    .getByRole('group', { name: 'Filter by source' })
    .getByRole('button', { name: /Built-in/ })
    .click();
  await expect(gallery.getByRole('article', { name: 'Skill greet' })).toBeHidden();
  await gallery.getByRole('group', { name: 'Filter by source' }).getByRole('button', { name: /^All/ }).click();
  await gallery.getByRole('searchbox', { name: 'Search skills' }).fill('greet');
  await expect(gallery.getByRole('article')).toHaveCount(1);

  await card.getByRole('button', { name: 'View SKILL.md of greet' }).click();
  const viewer = page.getByRole('dialog', { name: 'greet — SKILL.md' });
  await expect(viewer.getByLabel('SKILL.md contents')).toContainText('Greet $who in a $style style.');
  await viewer.getByRole('button', { name: 'Back to skills' }).click();
  await gallery.getByRole('button', { name: 'Open folder of greet' }).click();
  await expect(gallery.getByRole('status').filter({ hasText: '.deft/skills/greet' })).toBeVisible();
});

test('Run in the gallery asks for the named arguments and starts the skill in the session', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const gallery = await openGallery(page);
  await gallery.getByRole('button', { name: 'Run greet' }).click();
  const dialog = page.getByRole('dialog', { name: 'Run greet' });
  await dialog.getByLabel('who').fill('Ada Lovelace');
  await dialog.getByLabel('style').fill('<b>bold</b>');
  await dialog.getByRole('button', { name: 'Run skill' }).click();
  await expect(dialog).toBeHidden();

  const log = page.getByRole('log', { name: 'Conversation' });
  const activation = log.getByRole('group', { name: 'Skill greet' });
  await expect(activation).toContainText('"Ada Lovelace" <b>bold</b>');
  await expect(activation).toContainText('run by you');
  await expect(log.getByText(/^Echo: The user activated the skill "greet"/)).toBeVisible();
  const sent = lastUserMessage(mock);
  expect(sent).toContain('<skill-loaded name="greet" trigger="user" source="workspace" dir="');
  expect(sent).toContain('Greet Ada Lovelace in a &lt;b&gt;bold&lt;/b&gt; style.');
  await activation.getByRole('button', { expanded: false }).click();
  await expect(activation).toContainText('Greet Ada Lovelace in a <b>bold</b> style.');
});

test('from the keyboard: the gallery and Settings replace each other, and the last search is selected on reopening', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const gallery = page.getByRole('dialog', { name: 'Skills' });
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await page.keyboard.press('Control+Shift+K');
  const search = gallery.getByRole('searchbox', { name: 'Search skills' });
  await expect(search).toBeFocused();
  await page.keyboard.type('nothing-matches');
  await page.keyboard.press('Control+,');
  await expect(gallery).toBeHidden();
  // Settings takes the gallery's place and lands in its first field.
  await expect(settings.getByLabel('Base URL')).toBeFocused();
  // A focused checkbox shows the focus ring (text fields show focus by their border instead).
  // Opened from the keyboard, as the focus ring is for keyboard users.
  await settings.getByText('Advanced: protocol, images, context window').press('Enter');
  const images = settings.getByRole('checkbox', { name: 'This model accepts images' });
  await images.focus();
  expect(await images.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).outlineStyle)).toBe('solid');
  await page.keyboard.press('Control+Shift+K');
  await expect(settings).toBeHidden();
  await expect(search).toBeFocused();
  await page.keyboard.type('greet');
  await expect(search).toHaveValue('greet');
  await expect(gallery.getByRole('article')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
});

test('a skill folder created on disk appears in the open gallery without a reload', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const gallery = await openGallery(page);
  await expect(gallery.getByRole('article', { name: 'Skill greet' })).toBeVisible();
  await put(
    workspace,
    '.deft/skills/fresh-skill/SKILL.md',
    '---\nname: fresh-skill\ndescription: Appeared while the gallery was open.\n---\nDo fresh things.\n',
  );
  await expect(gallery.getByRole('article', { name: 'Skill fresh-skill' })).toContainText('Appeared while the gallery was open.');
  await put(workspace, '.deft/skills/fresh-skill/SKILL.md', '---\nname: fresh-skill\ndescription: Edited on disk.\n---\nDo fresh things.\n');
  await expect(gallery.getByRole('article', { name: 'Skill fresh-skill' })).toContainText('Edited on disk.');
});

test('typing / opens the skill menu; choosing with the keyboard and pressing Enter runs the skill', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/');
  const menu = page.getByRole('listbox', { name: 'Commands and skills' });
  await expect(menu.getByRole('option', { name: /\/review/ })).toBeVisible();
  await expect(menu.getByRole('option', { name: /\/skill:greet/ })).toBeVisible();
  await box.pressSequentially('gre');
  await expect(menu.getByRole('option')).toHaveCount(1);
  await expect(menu.getByRole('option', { name: /\/skill:greet/ })).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  await expect(box).toHaveValue('/skill:greet ');
  await expect(menu).toBeHidden();
  await box.pressSequentially('Grace formal');
  await box.press('Enter');
  await expect(page.getByRole('log', { name: 'Conversation' }).getByRole('group', { name: 'Skill greet' })).toContainText('Grace formal');
  await expect.poll(() => lastUserMessage(mock)).toContain('Greet Grace in a formal style.');

  await box.fill('/');
  await box.press('ArrowDown');
  await box.press('Escape');
  await expect(menu).toBeHidden();
  await box.fill('/nothing-like-this hello');
  await box.press('Enter');
  await expect(page.getByText('Echo: /nothing-like-this hello')).toBeVisible();
});

// Security review finding 13: a repository's skill that takes a built-in's name is shown as such.
test('a workspace skill named like a built-in is marked as overriding it, in the gallery and the slash menu', async ({ deft, workspace, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await put(workspace, '.deft/skills/commit/SKILL.md', '---\nname: commit\ndescription: Commit the way this repository wants.\n---\nDo it.\n');
  const gallery = await openGallery(page);
  const card = gallery.getByRole('article', { name: 'Skill commit' });
  await expect(card.getByText('Overrides built-in')).toBeVisible();
  await expect(card.getByText('Workspace', { exact: true })).toBeVisible();
  await page.keyboard.press('Escape');
  await page.getByRole('textbox', { name: 'Message' }).fill('/comm');
  await expect(page.getByRole('option', { name: /commit/ }).getByText('Overrides built-in')).toBeVisible();
});
