import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockChunk } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

const call = (id: string, name: string, args: unknown): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args) } });

test.use({ permissionMode: 'accept-edits' });

test('an Edit that breaks the types shows the new error on its file card (real typescript-language-server)', async ({
  deft,
  mock,
  workspace,
  home,
}, testInfo) => {
  test.setTimeout(240_000);
  const { page } = deft;
  await writeFile(join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] } }));
  await writeFile(join(workspace, 'total.ts'), 'export const total: number = 1 + 2;\n');
  await configureProvider(page, mock.baseUrl);
  // A trusted folder (servers never start in an untrusted one), and room for a cold start on a busy machine.
  await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [workspace]: { trusted: true } } }));
  const settings = JSON.parse(await readFile(join(home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(join(home, 'settings.json'), JSON.stringify({ ...settings, lsp: { diagnosticsWaitMs: 120_000 } }));
  mock.enqueue(
    { chunks: [call('r1', 'Read', { path: 'total.ts' }), { finish: 'tool_calls' }] },
    { chunks: [call('e1', 'Edit', { path: 'total.ts', old_string: 'const total: number', new_string: 'const total: string' }), { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Changed the type.' }, { finish: 'stop' }] },
  );
  await send(page, 'Make total a string');
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log.getByText('Changed the type.')).toBeVisible({ timeout: 200_000 });
  const edit = log.getByRole('group', { name: 'Edit tool call' });
  const problems = edit.getByRole('region', { name: 'Diagnostics' });
  await expect(problems).toContainText('1 new error · typescript');
  await expect(problems).toContainText("Type 'number' is not assignable to type 'string'.");
  await expect(problems.getByRole('button', { name: '1:14' })).toBeVisible();
  await testInfo.attach('edit-card-diagnostics', { body: await edit.screenshot(), contentType: 'image/png' });
});
