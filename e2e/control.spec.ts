import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MockChunk, RecordedRequest } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Approvals on the shipped tools (Read, Write, Edit), in the default ask mode.

const call = (name: string, args: unknown, id?: string): MockChunk => ({ toolCall: { ...(id ? { id } : {}), name, args: JSON.stringify(args) } });
const toolStep = (...calls: MockChunk[]) => ({ chunks: [...calls, { finish: 'tool_calls' as const }] });
const answer = (text: string) => ({ chunks: [{ text }, { finish: 'stop' as const }] });
const toolResults = (request: RecordedRequest | undefined) => (request?.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));

test('an Edit asks for approval showing the diff; "approve for session" stops further asks for that file', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await writeFile(join(workspace, 'app.ts'), 'export const answer = 41;\n');
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    // Read first: Edit refuses a file this session has not read. Read is read-only, so it never asks.
    toolStep(call('Read', { path: 'app.ts' }), call('Edit', { path: 'app.ts', old_string: '41', new_string: '42' })),
    toolStep(call('Edit', { path: 'app.ts', old_string: '42', new_string: '43' })),
    answer('Both edits are done.'),
  );
  await send(page, 'Bump the answer twice');

  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval).toBeVisible();
  await expect(approval).toContainText('Edit app.ts');
  // The diff as the real Edit shows it: one line removed, one added.
  await expect(approval).toContainText('+1 −1');
  await expect(approval).toContainText('export const answer = 41;');
  await expect(approval).toContainText('export const answer = 42;');
  await expect(approval.getByRole('button', { name: 'Approve once' })).toBeFocused();
  expect(await readFile(join(workspace, 'app.ts'), 'utf8')).toBe('export const answer = 41;\n');

  await approval.getByRole('button', { name: 'Approve for session' }).click();
  await expect(page.getByText('Both edits are done.')).toBeVisible();
  await expect(approval).toBeHidden();
  expect(await readFile(join(workspace, 'app.ts'), 'utf8')).toBe('export const answer = 43;\n');
  const results = toolResults(mock.requests.at(-1));
  expect(results).toHaveLength(3);
  expect(results[1]).toMatch(/^Replaced 1 occurrence in app\.ts/);
  expect(results[2]).toMatch(/^Replaced 1 occurrence in app\.ts/);
});

test("a rejection's feedback reaches the model", async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(toolStep(call('Write', { path: 'notes.md', content: '# Notes' })), answer('Understood, I will use docs/.'));
  await send(page, 'Write some notes');
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval).toContainText('Create notes.md');
  await approval.getByLabel('Feedback for Deft (sent if you reject)').fill('Put notes in docs/ instead.');
  await approval.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByText('Understood, I will use docs/.')).toBeVisible();
  expect(toolResults(mock.requests.at(-1))[0]).toContain('The user rejected this Write call, so it did not run. Their feedback: "Put notes in docs/ instead."');
  await expect(readFile(join(workspace, 'notes.md'))).rejects.toThrow();
});

test('the question dialog is answered with the keyboard and the mouse, and a dismissal is reported', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const questions = [
    { question: 'Which test runner?', header: 'Tests', options: [{ label: 'Vitest', description: 'Fast' }, { label: 'Jest' }] },
    { question: 'Which extras?', options: [{ label: 'Coverage' }, { label: 'Watch mode' }], multi_select: true },
  ];
  mock.enqueue(toolStep(call('AskUserQuestion', { questions })), answer('Thanks for the answers.'));
  await send(page, 'Set up tests');

  const dialog = page.getByRole('dialog', { name: 'Deft has 2 questions' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('radio', { name: /Vitest/ })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(dialog.getByRole('radio', { name: /Jest/ })).toBeChecked();
  await dialog.getByText('Coverage').click();
  await dialog.getByRole('textbox', { name: 'Your own answer to: Which extras?' }).fill('Snapshots');
  await dialog.getByRole('textbox', { name: 'Your own answer to: Which extras?' }).press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Thanks for the answers.')).toBeVisible();
  expect(JSON.parse(toolResults(mock.requests.at(-1))[0]!)).toEqual({ answers: { 'Which test runner?': 'Jest', 'Which extras?': 'Coverage, Snapshots' } });

  // The answer is on screen a moment before its turn ends, and Enter does nothing while a turn runs.
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  mock.enqueue(toolStep(call('AskUserQuestion', { questions: [questions[0]] })), answer('I will pick one myself.'));
  await send(page, 'Ask again');
  await expect(page.getByRole('dialog', { name: 'Deft has a question' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByText('I will pick one myself.')).toBeVisible();
  expect(JSON.parse(toolResults(mock.requests.at(-1)).at(-1)!)).toMatchObject({ answers: {}, note: expect.stringContaining('dismissed') });
});

test('keyboard focus: an answered approval hands it to the composer; a question arriving under Settings waits its turn', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const composer = page.getByRole('textbox', { name: 'Message' });
  mock.enqueue(toolStep(call('Write', { path: 'notes.md', content: '# Notes' })), answer('Written.'));
  await send(page, 'Write some notes');
  const approval = page.getByRole('region', { name: 'Approval needed' });
  await expect(approval.getByRole('button', { name: 'Approve once' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Written.')).toBeVisible();
  await expect(composer).toBeFocused();
  await expect(composer).toHaveAttribute('placeholder', /^Ask Deft/); // the turn has ended

  // The question comes while Settings is open: Settings keeps the keys, and one Escape closes only it.
  mock.enqueue(
    {
      ...toolStep(call('AskUserQuestion', { questions: [{ question: 'Which test runner?', options: [{ label: 'Vitest' }, { label: 'Jest' }] }] })),
      delayMs: 400,
    },
    answer('Fine.'),
  );
  await send(page, 'Ask me');
  await page.keyboard.press('Control+,');
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const question = page.getByRole('dialog', { name: 'Deft has a question' });
  await expect(question).toBeAttached();
  // Ctrl+, lands in the first field of the page shown.
  await expect(settings.getByLabel('Base URL')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  await expect(question.getByRole('radio', { name: /Vitest/ })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByText('Fine.')).toBeVisible();
  await expect(composer).toBeFocused();
});

test('the todo panel shows progress and the item in progress, updated live', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(
    toolStep(
      call('TodoList', {
        todos: [
          { title: 'Read the code', status: 'in_progress' },
          { title: 'Fix the bug', status: 'pending' },
          { title: 'Run the tests', status: 'pending' },
        ],
      }),
    ),
    // The second update comes slowly, so the first state can be seen before it.
    {
      ...toolStep(
        call('TodoList', {
          todos: [
            { title: 'Read the code', status: 'done' },
            { title: 'Fix the bug', status: 'in_progress' },
            { title: 'Run the tests', status: 'pending' },
          ],
        }),
      ),
      delayMs: 1_500,
    },
    answer('Working on the fix.'),
  );
  await send(page, 'Fix the bug');
  const panel = page.getByRole('region', { name: 'Todo list' });
  await expect(panel).toContainText('0/3 done');
  await expect(panel.locator('[aria-current="step"]')).toHaveText(/Read the code/);
  await expect(panel).toContainText('1/3 done');
  await expect(panel.locator('[aria-current="step"]')).toHaveText(/Fix the bug/);
  await expect(page.getByText('Working on the fix.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('region', { name: 'Todo list' })).toContainText('1/3 done');
});

test('plan mode: /plan and the toggle, a review with revise, then approve with an option', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const toggle = page.getByRole('button', { name: 'Plan mode' });
  await send(page, '/plan');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');

  // Plan mode reaches the model as a reminder (the latest one in the request is in force).
  const planPath = (r: RecordedRequest) =>
    r.body.messages
      .map((m) => /Plan file: (\S+)/.exec(String(m.content))?.[1])
      .filter(Boolean)
      .at(-1) ?? '';
  const options = [
    { label: 'Minimal', description: 'Unit tests only' },
    { label: 'Full', description: 'Unit and e2e tests' },
  ];
  let step = 0;
  mock.fallback = (request) => {
    step++;
    if (step === 1) return toolStep(call('Write', { path: planPath(request), content: '# Plan\n\n1. Add vitest\n' }));
    if (step === 2 || step === 4) return toolStep(call('ExitPlanMode', { options }));
    if (step === 3) return toolStep(call('Edit', { path: planPath(request), old_string: '1. Add vitest', new_string: '1. Add vitest\n2. Add a test plan' }));
    return answer('Carrying out the plan.');
  };
  await send(page, 'Add tests');

  const review = page.getByRole('region', { name: 'Plan review' });
  await expect(review).toContainText('Add vitest');
  await review.getByLabel('Feedback (needed to revise; optional when rejecting)').fill('Add a test plan.');
  await review.getByRole('button', { name: 'Revise' }).click();
  await expect(review.getByRole('listitem').filter({ hasText: 'Add a test plan' })).toBeVisible();
  const revised = mock.requests.flatMap((r) => toolResults(r));
  expect(revised.some((t) => t.includes('The user wants the plan revised before approving it. Their feedback: "Add a test plan."'))).toBe(true);

  await review.getByRole('radio', { name: /Full/ }).check();
  await review.getByRole('button', { name: 'Approve “Full”' }).click();
  await expect(page.getByText('Carrying out the plan.')).toBeVisible();
  const approved = toolResults(mock.requests.at(-1)).at(-1)!;
  expect(approved).toContain('the user approved the plan and chose the approach "Full" (Unit and e2e tests)');
  expect(approved).toContain('2. Add a test plan');
  await expect(page.getByRole('button', { name: 'Plan mode' })).toHaveAttribute('aria-pressed', 'false');
});

test('the permission mode switches from the window, and invalid rules are shown with their file', async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await mkdir(join(workspace, '.deft'));
  await writeFile(join(workspace, '.deft/settings.json'), JSON.stringify({ permissions: { allow: ['Bash(npm test'] } }));
  await configureProvider(page, mock.baseUrl);
  const problems = page.getByRole('alert', { name: 'Invalid permission rules' });
  await expect(problems).toContainText('Bash(npm test');
  await expect(problems).toContainText(join(workspace, '.deft/settings.json'));

  await page.getByLabel('Permission mode').selectOption('accept-edits');
  await expect(page.getByText('Permission mode: Accept edits')).toBeVisible();
  mock.enqueue(toolStep(call('Write', { path: 'a.txt', content: 'x' })), answer('Written without asking.'));
  await send(page, 'write a.txt');
  await expect(page.getByText('Written without asking.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeHidden();
  // The switch reaches the model in a reminder just before the prompt.
  const first = mock.requests.at(-2)!.body.messages;
  expect(String(first.at(-1)!.content)).toBe('write a.txt');
  expect(String(first.at(-2)!.content)).toMatch(/^<system-reminder>\n/);
  expect(String(first.at(-2)!.content)).toContain('<system-reminder>\nPermission mode: accept-edits — ');
});

test('the sidebar points at a session waiting for an approval, also after a reload', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  mock.enqueue(toolStep(call('Write', { path: 'a.txt', content: 'x' })));
  await send(page, 'write a.txt please');
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
  await page.getByRole('button', { name: 'New session' }).click();
  await send(page, 'something else');
  await expect(page.getByText('Echo: something else')).toBeVisible();
  const waiting = page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^write a\.txt please/ });
  await expect(waiting).toContainText('waiting for you');
  await page.reload();
  await expect(page.getByText('Echo: something else')).toBeVisible();
  await expect(waiting).toContainText('waiting for you');
  await waiting.click();
  await page.getByRole('button', { name: 'Approve once' }).click();
  await expect(waiting).not.toContainText('waiting for you');
});

test("a cloned folder's own settings cannot widen permissions until the user trusts it", async ({ deft, mock, workspace }) => {
  const { page } = deft;
  await mkdir(join(workspace, '.deft'));
  await writeFile(join(workspace, '.deft/settings.json'), JSON.stringify({ permissions: { allow: ['Write(*)'], defaultMode: 'yolo' } }));
  await configureProvider(page, mock.baseUrl);
  const banner = page.getByRole('alert', { name: 'Folder not trusted' });
  await expect(banner).toContainText('allow Write(*)');
  await expect(banner).toContainText('defaultMode yolo');
  await expect(page.getByLabel('Permission mode')).toHaveValue('ask');
  mock.enqueue(toolStep(call('Write', { path: 'a.txt', content: 'x' })));
  await send(page, 'write a.txt');
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeVisible();
  await page.getByRole('button', { name: 'Reject' }).click();

  await banner.getByRole('button', { name: 'Trust this folder' }).click();
  await expect(banner).toBeHidden();
  // The folder's default mode (listed in the banner) now applies, visibly.
  await expect(page.getByLabel('Permission mode')).toHaveValue('yolo');
  // Exact: the mock's echo of the rejected turn's next request may quote the mode reminder too.
  await expect(page.getByText('Permission mode: Yolo', { exact: true })).toBeVisible();
  mock.enqueue(toolStep(call('Write', { path: 'b.txt', content: 'y' })), answer('Written after trusting.'));
  await send(page, 'write b.txt');
  await expect(page.getByText('Written after trusting.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Approval needed' })).toBeHidden();
});

test('a goal shows its strip with status and budget, and can be paused', async ({ deft, mock }) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  await page.getByLabel('Permission mode').selectOption('yolo');
  mock.enqueue(toolStep(call('CreateGoal', { objective: 'Make the tests pass' }), call('SetGoalBudget', { value: 40, unit: 'turns' })));
  // Slow turns, so the goal is still running when Pause is clicked.
  mock.fallback = () => ({ chunks: [{ text: 'Still working.' }, { finish: 'stop' }], delayMs: 500 });
  await send(page, 'Make the tests pass');
  const strip = page.getByRole('region', { name: 'Goal', exact: true });
  await expect(strip).toContainText('Make the tests pass');
  await expect(strip).toContainText('Active');
  await expect(strip).toContainText(/turn \d+\/40/);
  // Picking the mode in an empty window and sending right away used one session, not two.
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('listitem')).toHaveCount(1);
  await strip.getByRole('button', { name: 'Pause' }).click();
  await expect(strip).toContainText('Paused');
  await expect(strip.getByRole('button', { name: 'Resume' })).toBeVisible();
  await strip.getByRole('button', { name: 'Cancel goal' }).click();
  await expect(strip).toBeHidden();
});
