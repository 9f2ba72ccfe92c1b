import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { configureProvider, expect, send, test } from './fixtures/deft';
import { answer, call, showApproval, showGoalStart, showPlanReview, toolStep } from './fixtures/screens';

// Issue 18, item 1: what is being approved and the buttons, at once, at every size; single-key answers.

async function inViewport(page: Page, locator: Locator): Promise<void> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, 'is laid out').not.toBeNull();
  expect(box!.y, 'top inside the window').toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height, 'bottom inside the window').toBeLessThanOrEqual(viewport.height);
  expect(box!.x + box!.width, 'right edge inside the window').toBeLessThanOrEqual(viewport.width);
}

for (const [width, height] of [
  [1280, 800],
  [900, 700],
] as const) {
  test(`an Edit approval shows what it approves and its answers together at ${width}×${height}, the dock within 60 % of the height`, async ({
    deft,
    mock,
    workspace,
  }) => {
    const { page } = deft;
    await page.setViewportSize({ width, height });
    await showApproval({ page, mock, workspace });
    const approval = page.getByRole('region', { name: 'Approval needed' });
    const header = approval.getByRole('heading', { name: 'Approval needed' });
    await expect(approval).toContainText('Edit src/rates.js');
    for (const part of [
      header,
      approval.getByText('Edit src/rates.js'),
      approval.getByRole('button', { name: /Approve once/ }),
      approval.getByRole('button', { name: /Reject/ }),
      approval.getByRole('button', { name: /Always allow/ }),
    ])
      await inViewport(page, part);
    const dock = await page.locator('.dock').boundingBox();
    expect(dock!.height).toBeLessThanOrEqual(height * 0.6 + 1);
    // Only the diff scrolls: at its end the header and the buttons are where they were.
    const scroller = approval.locator('.approval-scroll');
    expect(await scroller.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await inViewport(page, header);
    await inViewport(page, approval.getByRole('button', { name: /Approve once/ }));
    await expect(approval.getByRole('button', { name: /Approve once/ })).toBeFocused();
  });
}

test('single keys answer an approval that has the focus: the keys are on the buttons, and typing feedback is not an answer', async ({
  deft,
  mock,
  workspace,
}) => {
  const { page } = deft;
  await showApproval({ page, mock, workspace });
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval.getByRole('button', { name: /Approve once/ })).toContainText('Y');
  await expect(approval.getByRole('button', { name: /Approve for session/ })).toHaveAttribute('aria-keyshortcuts', 'a');
  await expect(approval.getByRole('button', { name: /Always allow/ })).toHaveAttribute('aria-keyshortcuts', 'Shift+A');
  await expect(approval.getByRole('button', { name: /Reject/ })).toContainText('N');
  // Letters typed into the feedback box stay there.
  const feedback = approval.getByLabel('Feedback for Deft (sent if you reject)');
  await feedback.fill('');
  await feedback.pressSequentially('nay');
  await expect(feedback).toHaveValue('nay');
  await expect(approval).toBeVisible();
  await feedback.fill('');
  // The keys answer wherever the focus is in the card: after its own layout toggle, or a click on the diff's text.
  await approval.getByRole('button', { name: 'Split' }).click({ force: true });
  await approval.getByRole('button', { name: 'Unified' }).click();
  await approval.getByText('export const rate3 = 3;').first().click();
  await page.keyboard.press('y');
  await expect(page.getByText('Doubled every rate.')).toBeVisible();
  expect(await readFile(join(workspace, 'src/rates.js'), 'utf8')).toContain('rate3 = 3 * 2;');

  // `n` rejects, and the feedback written goes with it.
  mock.enqueue(toolStep(call('Write', { path: 'notes.md', content: '# Notes' })), answer('Understood.'));
  await send(page, 'Write notes');
  await expect(approval).toBeVisible();
  await approval.getByLabel('Feedback for Deft (sent if you reject)').fill('Not now.');
  await approval.getByRole('button', { name: /Approve once/ }).focus();
  await page.keyboard.press('n');
  await expect(page.getByText('Understood.')).toBeVisible();
  const results = mock.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  expect(results.at(-1)).toContain('Their feedback: "Not now."');
  await expect(readFile(join(workspace, 'notes.md'))).rejects.toThrow();
});

test('while an approval waits, the todo list and the goal keep to one line each', async ({ deft, mock }) => {
  const { page } = deft;
  await page.setViewportSize({ width: 900, height: 700 });
  await configureProvider(page, mock.baseUrl);
  await page.getByLabel('Permission mode').selectOption('yolo');
  mock.enqueue(
    toolStep(
      call('CreateGoal', { objective: 'Tidy the notes' }),
      call('TodoList', {
        todos: [
          { title: 'Read', status: 'done' },
          { title: 'Write', status: 'in_progress' },
          { title: 'Check', status: 'pending' },
        ],
      }),
    ),
    answer('Set up.'),
  );
  // The goal's next turn asks before writing (ask mode again), and waits there.
  mock.fallback = () => ({ ...toolStep(call('Write', { path: 'notes.md', content: '# Notes' })), delayMs: 1_000 });
  await send(page, 'Tidy the notes');
  const todo = page.getByRole('region', { name: 'Todo list' });
  await expect(todo.getByRole('listitem')).toHaveCount(3);
  await page.getByLabel('Permission mode').selectOption('ask');
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval).toBeVisible({ timeout: 15_000 });
  await expect(todo.getByRole('listitem')).toHaveCount(0);
  await expect(todo).toContainText('1/3 done');
  await expect(todo).toContainText('Write');
  const goal = page.getByRole('region', { name: 'Goal', exact: true });
  for (const strip of [todo, goal]) expect((await strip.boundingBox())!.height).toBeLessThan(48);
  await inViewport(page, approval.getByRole('button', { name: /Approve once/ }));
  await approval.getByRole('button', { name: /Reject/ }).click();
});

for (const [width, height] of [
  [1280, 800],
  [900, 700],
] as const) {
  test(`a plan is reviewed in a tall pane at ${width}×${height}: its title and answers in view, the plan scrolling between them`, async ({
    deft,
    mock,
    workspace,
  }) => {
    const { page } = deft;
    await page.setViewportSize({ width, height });
    await showPlanReview({ page, mock, workspace });
    const review = page.getByRole('region', { name: 'Plan review' });
    await inViewport(page, review.getByRole('heading', { name: 'Plan ready for review' }));
    await inViewport(page, review.getByRole('button', { name: /Approve/ }).first());
    await inViewport(page, review.getByRole('button', { name: /Reject/ }));
    // The plan itself gets most of the pane: far more than a title line.
    const plan = await review.getByLabel('Plan').boundingBox();
    expect(plan!.height).toBeGreaterThan(height * 0.25);
    await expect(review.getByText('Step 1:')).toBeVisible();
    // Set aside to read the conversation, then back.
    await review.getByRole('button', { name: 'Show conversation' }).click();
    await expect(page.getByRole('log', { name: 'Conversation' })).toBeVisible();
    const waiting = page.getByRole('region', { name: 'Plan waiting for review' });
    await waiting.getByRole('button', { name: 'Review plan' }).click();
    await expect(review).toBeVisible();
    // `r` without feedback asks for it; `y` approves with the chosen approach.
    await review
      .getByRole('button', { name: /Approve/ })
      .first()
      .focus();
    await page.keyboard.press('r');
    await expect(review.getByRole('alert')).toContainText('Write what should change');
    await expect(review.getByLabel('Feedback (needed to revise; optional when rejecting)')).toBeFocused();
    await review.getByRole('radio', { name: /Full/ }).check();
    await page.keyboard.press('y');
    await expect(page.getByText('Carrying out the plan.')).toBeVisible();
    expect(
      mock.requests
        .flatMap((r) => r.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)))
        .some((t) => t.includes('chose the approach "Full"')),
    ).toBe(true);
  });
}

test('a goal start card starts the goal as usual (Y) or without asking (W): its turns run in yolo, and the mode comes back when it completes', async ({
  deft,
  mock,
  workspace,
}) => {
  const { page } = deft;
  await showGoalStart({ page, mock, workspace });
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval.getByRole('button', { name: /Start goal/ })).toHaveAttribute('aria-keyshortcuts', 'y');
  await expect(approval.getByRole('button', { name: /Start without asking/ })).toHaveAttribute('aria-keyshortcuts', 'w');
  await expect(approval.getByRole('definition').first()).toContainText('Ask before changes decides what asks you first');
  mock.enqueue(
    toolStep(call('Write', { path: 'notes.md', content: '# Notes\n' })),
    toolStep(call('UpdateGoal', { status: 'complete', note: 'Tests pass' })),
    answer('All green.'),
  );
  await expect(approval.getByRole('button', { name: /Start goal/ })).toBeFocused();
  await page.keyboard.press('w');
  const mode = page.getByLabel('Permission mode');
  // The Write of the goal's turn ran without a card; the mode came back when the goal completed.
  await expect(page.getByText('Permission mode: Yolo — while the goal runs (started without asking)')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText('Permission mode: Ask — the goal stopped')).toBeVisible({ timeout: 15_000 });
  await expect(mode).toHaveValue('ask');
  expect(await readFile(join(workspace, 'notes.md'), 'utf8')).toBe('# Notes\n');
  await expect(page.getByRole('region', { name: 'Goal', exact: true })).toContainText('Complete');
  await expect(approval).toBeHidden();
});

test.describe('yolo', () => {
  test.use({ permissionMode: 'yolo' });

  test('a loop that only prints text runs without asking, though the text names .git/config (issue 35)', async ({ deft, mock }) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    mock.enqueue(
      toolStep(call('Bash', { command: 'for i in 1 2 3; do echo "line $i of .git/config is fine"; done', description: 'print three lines' })),
      answer('Printed.'),
    );
    await send(page, 'Print three lines');
    await expect(page.getByText('Printed.')).toBeVisible({ timeout: 15_000 });
    await expect(page.getByRole('region', { name: 'Approval needed' })).toHaveCount(0);
    const results = mock.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(results.at(-1)).toContain('line 3 of .git/config is fine');
  });
});
