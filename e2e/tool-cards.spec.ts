import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordedRequest } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { SIZES, answer, call, expectInView, toolStep } from './fixtures/daily';

// Issue 18 item 8: tool cards say each thing once; answers as pairs; the plan's writes folded; paths open
// the file; "Always allow" proposes a prefix rule the user can edit.

test('a Read card says each thing once, with a workspace-relative path that opens the file read-only', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await mkdir(join(workspace, 'src'));
  await writeFile(join(workspace, 'src/money.js'), Array.from({ length: 40 }, (_, i) => `export const n${i} = ${i};`).join('\n') + '\n');
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(toolStep(call('Read', { path: join(workspace, 'src/money.js'), n_lines: 15 })), answer('Read it.'));
  await send(page, 'Read money.js');
  await expect(page.getByText('Read it.')).toBeVisible();
  const card = page.getByRole('group', { name: 'Read tool call' });
  const header = card.locator('.tool-header');
  await expect(header.locator('.tool-name')).toHaveText('Read');
  await expect(header.locator('.tool-description')).toHaveText('src/money.js');
  await expect(header.locator('.tool-summary')).toHaveText('L1–15 of 40');
  await expect(header.getByRole('button', { expanded: false })).toHaveAccessibleName('Read src/money.js');
  await expect(header).not.toContainText(workspace);
  await card.getByRole('button', { name: 'src/money.js', exact: true }).click();
  const viewer = page.getByRole('complementary', { name: 'File viewer' });
  await expect(viewer.getByRole('heading', { name: 'src/money.js' })).toBeFocused();
  await expect(viewer).toContainText('read-only');
  await expect(viewer).toContainText('export const n39 = 39;');
  await expect(viewer).toContainText('40 lines');
  // The browser host cannot hand files to a desktop editor.
  await expect(viewer.getByRole('button', { name: 'Open in editor' })).toHaveCount(0);
  await viewer.getByRole('button', { name: 'Close file viewer' }).click();
  await expect(viewer).toBeHidden();
  await expect(card.getByRole('button', { name: 'src/money.js', exact: true })).toBeFocused();
});

test('question answers show as question → answer pairs, not JSON', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const questions = [{ question: 'Which test runner?', header: 'Tests', options: [{ label: 'Vitest' }, { label: 'Jest' }] }];
  mock.enqueue(toolStep(call('AskUserQuestion', { questions })), answer('Vitest it is.'));
  await send(page, 'Set up tests');
  await page.getByRole('dialog', { name: 'Deft has a question' }).getByRole('button', { name: 'Submit answers' }).click();
  await page
    .getByRole('dialog', { name: 'Deft has a question' })
    .getByRole('radio', { name: /Vitest/ })
    .check();
  await page.getByRole('dialog', { name: 'Deft has a question' }).getByRole('button', { name: 'Submit answers' }).click();
  await expect(page.getByText('Vitest it is.')).toBeVisible();
  const card = page.getByRole('group', { name: 'AskUserQuestion tool call' });
  const pairs = card.locator('.answer-pairs');
  await expect(pairs.locator('dt')).toHaveText(['Which test runner?']);
  await expect(pairs.locator('dd')).toHaveText(['Vitest']);
  await expect(card).not.toContainText('{"answers"');
});

test("the plan file's writes are one line, the plan itself is shown by the review", async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await send(page, '/plan');
  const planPath = (r: RecordedRequest) =>
    r.body.messages
      .map((m) => /Plan file: (\S+)/.exec(String(m.content))?.[1])
      .filter(Boolean)
      .at(-1) ?? '';
  let step = 0;
  mock.fallback = (request) => {
    step++;
    if (step === 1) return toolStep(call('Write', { path: planPath(request), content: '# Plan\n\n1. Add vitest\n2. Write the first test\n' }));
    if (step === 2) return toolStep(call('ExitPlanMode', {}));
    return answer('Carrying out the plan.');
  };
  await send(page, 'Add tests');
  const review = page.getByRole('region', { name: 'Plan review' });
  await expect(review).toContainText('Write the first test');
  // The review takes the conversation's place; set aside, the conversation shows the Write as one line.
  await review.getByRole('button', { name: 'Show conversation' }).click();
  const write = page.getByRole('group', { name: 'Write tool call' });
  await expect(write.locator('.tool-header')).toContainText('Updated the plan');
  // Folded: the Write's diff of the plan is not shown; the plan appears once in the conversation (the review's card).
  await expect(write.locator('.diff')).toHaveCount(0);
  await expect(page.getByRole('log', { name: 'Conversation' }).getByText('Write the first test')).toHaveCount(1);
  await expect(page.getByRole('group', { name: 'ExitPlanMode tool call' })).toContainText('Write the first test');
  await page.getByRole('region', { name: 'Plan waiting for review' }).getByRole('button', { name: 'Review plan' }).click();
  await review.getByRole('button', { name: /^Approve/ }).click();
  await expect(page.getByText('Carrying out the plan.')).toBeVisible();
});

for (const size of SIZES) {
  test(`at ${size.width}×${size.height} "Always allow" proposes a prefix rule to edit; the saved rule covers the next call with other arguments`, async ({
    deft,
    mock,
    workspace,
  }) => {
    const { page } = deft;
    await page.setViewportSize(size);
    await writeFile(join(workspace, 'package.json'), JSON.stringify({ scripts: { test: 'echo tested' } }));
    await configureProvider(page, mock.baseUrl);
    mock.enqueue(
      toolStep(call('Bash', { command: 'npm test -- --silent' })),
      toolStep(call('Bash', { command: 'npm test -- --ci' })),
      answer('Tests ran twice.'),
    );
    await send(page, 'Run the tests');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await approval.getByRole('button', { name: 'Always allow…' }).click();
    const rule = approval.getByLabel('Rule to add to .deft/settings.local.json');
    await expect(rule).toHaveValue('Bash(npm test:*)');
    await expect(rule).toBeFocused();
    await expectInView(page, approval.getByRole('button', { name: 'Save and allow' }));
    // A rule that would not allow this very call is refused with the reason.
    await rule.fill('Bash(npm run lint:*)');
    await approval.getByRole('button', { name: 'Save and allow' }).click();
    await expect(approval.getByRole('alert')).toContainText('would not allow this very call');
    await rule.fill('Bash(npm test:*)');
    await approval.getByRole('button', { name: 'Save and allow' }).click();
    await expect(page.getByText('Tests ran twice.')).toBeVisible();
    const saved = JSON.parse(await readFile(join(workspace, '.deft/settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual(['Bash(npm test:*)']);
    await expect(page.getByRole('group', { name: 'Bash tool call' })).toHaveCount(2);
  });
}
