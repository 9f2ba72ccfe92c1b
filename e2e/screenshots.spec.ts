import { textChunks } from '../test-support/mock-model-server';
import { configureProvider, expect, send, test } from './fixtures/deft';

// Screenshots of the main screens, attached to the report for review.
test('screenshots: first run and a conversation', async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await expect(page.getByRole('heading', { name: 'Connect a model to get started' })).toBeVisible();
  await testInfo.attach('first-run', { body: await page.screenshot(), contentType: 'image/png' });
  await configureProvider(page, mock.baseUrl);
  const answer =
    'Deft reads the workspace through tools.\n\n```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```\n\n| Step | Status |\n| --- | --- |\n| Read | done |\n';
  mock.enqueue({
    chunks: [
      { thinking: 'The user wants an overview.' },
      ...textChunks(answer, 12),
      { finish: 'stop' },
      { usage: { prompt_tokens: 2048, completion_tokens: 96 } },
    ],
  });
  await send(page, 'Show me how this project adds numbers');
  await expect(page.getByText('Deft reads the workspace through tools.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await testInfo.attach('conversation', { body: await page.screenshot(), contentType: 'image/png' });
});
