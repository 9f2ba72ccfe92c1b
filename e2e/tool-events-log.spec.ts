import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { MockChunk } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Issue 19: tool events keep large content once (Read's text in the output only, diffs as hunks). The cards
// read back from the log look as they did live, and a log written before the change shows the same cards.

const call = (id: string, name: string, args: unknown): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args) } });
const APP = Array.from({ length: 40 }, (_, i) => `export const v${i} = ${i}; // line ${i + 1}`).join('\n') + '\n';
const FIXTURE = join(import.meta.dirname, '..', 'main', 'agent', 'infra', 'sessions', 'fixtures', 'tool-events-v2', 'log.jsonl');

test.use({ permissionMode: 'accept-edits' });

async function sessionDir(home: string): Promise<{ dir: string; id: string }> {
  const root = join(home, 'sessions');
  const [workspaceDir] = await readdir(root);
  const [id] = await readdir(join(root, workspaceDir!));
  return { dir: join(root, workspaceDir!, id!), id: id! };
}

/** The first Read card shows the file's text with line numbers; the Edit card the changed line as a diff. */
async function expectCards(page: Page, log: Locator): Promise<void> {
  // The conversation is a virtualised list: the first turn's rows are rendered once it is scrolled to.
  await log.evaluate((el) => (el.scrollTop = 0));
  const read = log.getByRole('group', { name: 'Read tool call' }).first();
  await expect(read.locator('.tool-summary')).toHaveText('L1–40');
  await read.getByRole('button', { name: /Read src\/app\.ts/ }).click();
  await expect(read.locator('.code-table tr')).toHaveCount(40);
  await expect(read.locator('.code-table tr').last()).toContainText('40export const v39 = 39; // line 40');
  const edit = log.getByRole('group', { name: 'Edit tool call' }).first();
  await expect(edit.locator('.tool-summary')).toContainText('+1 −1');
  await expect(edit.locator('tr.diff-hunk')).toHaveText('@@ -17,7 +17,7 @@');
  await expect(edit.locator('tr.diff-del')).toContainText('// line 20');
  await expect(edit.locator('tr.diff-add')).toContainText('// line twenty');
  const changes = log.getByRole('group', { name: 'Changed files' }).first();
  await changes.getByRole('button', { name: 'Show changes to src/app.ts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Changes to src/app.ts' });
  // A wide dialog shows the diff side by side.
  await expect(dialog.locator('.diff-add')).toContainText(['// line twenty']);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
}

/** The last turn's changed-files dialog shows one net diff of the file (not each change) with these added lines. */
async function expectNetChange(page: Page, log: Locator, added: RegExp[]): Promise<void> {
  await log.evaluate((el) => (el.scrollTop = el.scrollHeight));
  const changes = log.getByRole('group', { name: 'Changed files' }).last();
  await changes.getByRole('button', { name: 'Show changes to src/app.ts' }).click();
  const dialog = page.getByRole('dialog', { name: 'Changes to src/app.ts' });
  await expect(dialog.locator('.diff-add.diff-code')).toHaveText(added);
  await expect(dialog.getByRole('heading', { name: /Change 1 of/ })).toHaveCount(0);
}

test('Read and Edit cards read back from the log look as they did live', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await mkdir(join(workspace, 'src'));
  await writeFile(join(workspace, 'src/app.ts'), APP);
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    { chunks: [call('r1', 'Read', { path: 'src/app.ts' }), { finish: 'tool_calls' }] },
    { chunks: [call('e1', 'Edit', { path: 'src/app.ts', old_string: 'line 20', new_string: 'line twenty' }), { finish: 'tool_calls' }] },
    { chunks: [call('e2', 'Edit', { path: 'src/app.ts', old_string: 'line 35', new_string: 'line thirty-five' }), { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Renamed line 20.' }, { finish: 'stop' }] },
  );
  await send(page, 'Rename line 20');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Renamed line 20.')).toBeVisible();
  await expectCards(page, log);

  await deft.restart();
  await expect(log.getByText('Renamed line 20.')).toBeVisible();
  await expectCards(page, log);
  // The diffs keep no whole texts: the net change of the two edits is composed from their hunks.
  await expectNetChange(page, log, [/line twenty/, /line thirty-five/]);
});

test('a log written before tool events were slimmed opens with the same cards', async ({ deft, mock, home }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, 'first prompt');
  await expect(page.getByText('Echo: first prompt')).toBeVisible();
  // The session's log becomes the old one (its events say its own session id).
  const { dir, id } = await sessionDir(home);
  const old = await readFile(FIXTURE, 'utf8');
  const oldId = (JSON.parse(old.slice(0, old.indexOf('\n'))) as { sessionId: string }).sessionId;
  await writeFile(join(dir, 'log.jsonl'), old.replaceAll(oldId, id));
  const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'meta.json'), JSON.stringify({ ...meta, turns: 5 }));
  await deft.restart();

  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Two edits, one miss.')).toBeVisible();
  await expectCards(page, log);
  // Two edits of one file in a turn: the old events carry whole texts, so the dialog shows the net change.
  await expectNetChange(page, log, [/line five/, /line thirty-five/]);
});
