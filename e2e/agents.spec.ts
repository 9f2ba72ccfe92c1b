import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configureProvider, expect, send, test } from './fixtures/deft';
import type { MockReply } from '../test-support/mock-model-server';

/** The page's document, as page.evaluate sees it (this project is typed for Node). */
interface PageGlobals {
  document: { elementFromPoint(x: number, y: number): { closest(selector: string): unknown } | null };
}

const call = (name: string, args: Record<string, unknown>): MockReply => ({
  chunks: [{ toolCall: { name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }],
});
const text = (answer: string, delayMs = 0): MockReply => ({ chunks: [{ text: answer }, { finish: 'stop' }], ...(delayMs ? { delayMs } : {}) });
/** A final answer long enough that the sub-agent is not asked to expand it. */
const longAnswer = (head: string) => `${head}. ${'It checked what it was asked to and reports the details here for the parent agent. '.repeat(3)}`;

test.describe('sub-agents', () => {
  test.use({ permissionMode: 'yolo' });

  test("an agent card streams its sub-agent's tool calls and shows its answer", async ({ deft, mock, workspace }) => {
    const { page } = deft;
    await writeFile(join(workspace, 'notes.md'), '# Notes\nThe port is 8080.\n');
    await configureProvider(page, mock.baseUrl);
    mock.enqueue(call('Agent', { description: 'look around', prompt: 'E2E-SUB: find the port', subagent_type: 'explore' }), text('The sub-agent found it.'));
    mock.route(
      'E2E-SUB',
      { ...call('Bash', { command: 'echo scanning; sleep 1.5; echo scanned', description: 'scan the tree' }), delayMs: 200 },
      call('Read', { path: 'notes.md' }),
      text(longAnswer('The port is 8080'), 20),
    );
    await send(page, 'Find the port with a sub-agent');

    const card = page.getByRole('group', { name: 'Sub-agent explore: look around' });
    await expect(card).toBeVisible();
    await expect(card).toContainText('Running');
    // Its live step while it runs.
    await expect(card.getByText(/Bash: .*scan/)).toBeVisible({ timeout: 10_000 });
    await card.getByRole('button', { name: 'Show transcript' }).click();
    const transcript = card.getByRole('log', { name: /Transcript of explore sub-agent/ });
    await expect(transcript.getByRole('group', { name: 'Bash tool call' })).toBeVisible();
    await expect(transcript.getByRole('group', { name: 'Read tool call' })).toBeVisible({ timeout: 10_000 });
    await expect(card).toContainText('Done', { timeout: 10_000 });
    await expect(card.getByText('The port is 8080', { exact: false }).first()).toBeVisible();
    await expect(page.getByText('The sub-agent found it.')).toBeVisible();
  });

  test('the swarm grid fills in, and an item opens its transcript', async ({ deft, mock }) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    const items = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
    mock.enqueue(
      call('AgentSwarm', { description: 'check modules', prompt_template: 'E2E-SWARM check {{item}}', items, subagent_type: 'plan' }),
      text('All modules checked.'),
    );
    for (const item of items) mock.route(`E2E-SWARM check ${item}`, text(longAnswer(`Module ${item} is fine`), 40));
    await send(page, 'Check every module');

    const card = page.getByRole('group', { name: 'Swarm: check modules' });
    await expect(card).toBeVisible();
    const grid = card.getByRole('list', { name: 'Swarm items' });
    await expect(grid.getByRole('button')).toHaveCount(6);
    await expect(card.getByLabel('Swarm progress')).toContainText('6/6 done', { timeout: 15_000 });
    for (const item of items) await expect(grid.getByRole('button', { name: `${item}: Done` })).toBeVisible();
    await expect(page.getByText('All modules checked.')).toBeVisible();

    await grid.getByRole('button', { name: 'gamma: Done' }).click();
    const dialog = page.getByRole('dialog', { name: /gamma — plan sub-agent/ });
    await expect(dialog).toContainText('Module gamma is fine');
    // Drawn at page level (issue 35): not inside its transcript row, its backdrop covers the window and nothing
    // of the conversation paints over it.
    expect(await dialog.evaluate((el) => el.closest('[role="log"]') === null)).toBe(true);
    const backdrop = (await page.locator('.dialog-backdrop').boundingBox())!;
    expect(backdrop).toMatchObject({ x: 0, y: 0, width: page.viewportSize()!.width, height: page.viewportSize()!.height });
    const box = (await dialog.boundingBox())!;
    for (const [x, y] of [
      [box.x + 10, box.y + box.height - 10],
      [box.x + box.width / 2, box.y + box.height / 2],
    ] as const) {
      const onTop = await page.evaluate(
        ([px, py]) => (globalThis as unknown as PageGlobals).document.elementFromPoint(px, py)?.closest('[role="dialog"]') != null,
        [x, y] as const,
      );
      expect(onTop).toBe(true);
    }
    await dialog.getByRole('button', { name: 'Show transcript' }).click();
    await expect(dialog.getByRole('log')).toContainText('E2E-SWARM check gamma');
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });
});

test.describe('sub-agent approvals', () => {
  test.use({ permissionMode: 'ask' });

  test("a sub-agent's approval says which one asks, and approving it lets it go on", async ({ deft, mock, workspace }) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    mock.enqueue(call('Agent', { description: 'write the file', prompt: 'E2E-WRITE: create hello.txt' }), text('The file is written.'));
    mock.route('E2E-WRITE', call('Write', { path: 'hello.txt', content: 'hello from a sub-agent\n' }), text(longAnswer('Created hello.txt')));
    await send(page, 'Delegate writing the file');

    const approval = page.getByRole('region', { name: 'Approval needed' });
    await expect(approval).toBeVisible();
    await expect(approval).toContainText('Sub-agent coder: write the file');
    await expect(approval).toContainText('hello.txt');
    await approval.getByRole('button', { name: 'Approve once' }).click();
    await expect(approval).toBeHidden();
    const card = page.getByRole('group', { name: 'Sub-agent coder: write the file' });
    await expect(card).toContainText('Done', { timeout: 10_000 });
    await expect(page.getByText('The file is written.')).toBeVisible();
    expect(await readFile(join(workspace, 'hello.txt'), 'utf8')).toBe('hello from a sub-agent\n');
  });
});

test('Settings lists the sub-agent types, and why a workspace definition is not used yet', async ({ deft, mock, workspace, home }) => {
  const { page } = deft;
  await mkdir(join(home, 'agents'), { recursive: true });
  await writeFile(
    join(home, 'agents', 'reviewer.md'),
    '---\nname: reviewer\ndescription: Reviews a change for bugs\ntools: Read, Grep\n---\nReview carefully.\n',
  );
  await mkdir(join(workspace, '.claude', 'agents'), { recursive: true });
  await writeFile(join(workspace, '.claude', 'agents', 'repo.md'), '---\nname: repo\ndescription: From the repository\n---\nDo repo things.\n');
  await configureProvider(page, mock.baseUrl);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Settings' }).getByRole('tab', { name: 'Sub-agent types' }).click();
  const section = page.getByRole('dialog', { name: 'Settings' }).getByRole('region', { name: 'Sub-agent types' });
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByRole('listitem').filter({ hasText: 'reviewer' })).toContainText('Reviews a change for bugs');
  await expect(section.getByRole('listitem').filter({ hasText: 'reviewer' })).toContainText('Tools: Read, Grep');
  await expect(section.getByRole('listitem').filter({ hasText: 'explore' })).toContainText('built-in');
  await expect(section).toContainText('repo.md: the workspace is not trusted yet');
  // Saved while the page is open, a definition shows without reopening it (as skills do).
  await writeFile(join(home, 'agents', 'tester.md'), '---\nname: tester\ndescription: Writes the missing tests\n---\nTest it.\n');
  await expect(section.getByRole('listitem').filter({ hasText: 'tester' })).toContainText('Writes the missing tests');
});
