import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCapabilities } from './capabilities';
import { webHost } from '../host/hosts';
import { createHarness } from '#test-support/harness';
import { textReply } from '#test-support/mock-steps';

/**
 * The whole first request of a session, as the provider receives it: the system prompt, every tool with its schema,
 * and the first messages (the facts' reminder, then the prompt). What the model reads changes only on purpose: update
 * the snapshot deliberately (`npx vitest run main/agent/first-request.test.ts -u`) and review the diff. Beside it,
 * schemas.test.ts pins each tool's schema on its own.
 */
const repo = join(import.meta.dirname, '..', '..');

describe('the first request of a session', async () => {
  // The app as a window runs it: every capability, the default permission mode, a workspace with AGENTS.md.
  const h = await createHarness({ host: webHost, capabilities: defaultCapabilities, permissionMode: 'ask' });
  afterAll(() => h.dispose());
  await writeFile(join(h.workspace, 'AGENTS.md'), '# Notes\nRun `npm test` before you finish.\n');
  h.server.enqueue(textReply('It holds AGENTS.md.'));
  await h.run('What is in this folder?');

  it('is what the model is sent', () => {
    const [request] = h.server.requests;
    expect(h.server.requests).toHaveLength(1);
    // Only what differs from machine to machine and day to day is replaced.
    const text = JSON.stringify(request!.body, null, 2)
      .replaceAll(h.workspace, '<workspace>')
      .replaceAll(h.home, '<home>')
      .replaceAll(repo, '<repo>')
      .replace(/- Operating system: [^\\]*/, '- Operating system: <os>')
      .replace(/Today's date: \d{4}-\d{2}-\d{2}/, "Today's date: <date>");
    expect(JSON.parse(text)).toMatchSnapshot();
  });
});
