import { mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { configureProvider, expect, send, test } from './fixtures/deft';

test.use({ permissionMode: 'yolo' });

// The OS sandbox in the window (web host; the machine running the e2e suite has bubblewrap, as CI does).
function bashCall(id: string, command: string) {
  return { chunks: [{ toolCall: { id, name: 'Bash', args: JSON.stringify({ command }) } }, { finish: 'tool_calls' as const }] };
}

test('a sandboxed command card: the mark, and what the sandbox blocked with how to allow it', async ({ deft, mock, home }, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const target = `${home}/trust.json`;
  const encoded = Buffer.from(target).toString('base64');
  mock.enqueue(bashCall('w1', `node -e "require('fs').writeFileSync(Buffer.from('${encoded}','base64').toString(), '{}')"`), {
    chunks: [{ text: 'The sandbox refused it.' }, { finish: 'stop' }],
  });
  await send(page, 'write the trust file');
  const card = page.getByRole('group', { name: 'Bash tool call' }).last();
  await expect(card.getByText('sandboxed')).toBeVisible();
  const blocked = card.getByRole('note', { name: 'Blocked by the sandbox' });
  await expect(blocked).toBeVisible();
  await expect(blocked).toContainText(target);
  await expect(blocked).toContainText('protected');
  await testInfo.attach('sandbox-blocked', { body: await page.screenshot(), contentType: 'image/png' });
});

test('a sandboxed command reaching a new host is held and asked about; allowed once, it goes through', async ({ deft, mock }, testInfo) => {
  const { page } = deft;
  await configureProvider(page, mock.baseUrl);
  const server: Server = createServer((_req, res) => res.end('hello from the host\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    mock.enqueue(bashCall('n1', `curl -sS --max-time 30 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/`), {
      chunks: [{ text: 'Fetched.' }, { finish: 'stop' }],
    });
    await send(page, 'fetch from the local server');
    const approval = page.getByRole('region', { name: 'Approval needed' });
    await expect(approval.getByRole('heading', { name: 'Allow a connection?' })).toBeVisible();
    await expect(approval).toContainText(`127.0.0.1:${port}`);
    await testInfo.attach('sandbox-network-approval', { body: await page.screenshot(), contentType: 'image/png' });
    await approval.getByRole('button', { name: 'Allow once' }).click();
    await expect(page.getByText('Fetched.')).toBeVisible();
    await page.getByRole('group', { name: 'Bash tool call' }).last().getByRole('button').first().click();
    await expect(page.getByText('hello from the host')).toBeVisible();
  } finally {
    server.close();
  }
});

test.describe('on a machine without bubblewrap', () => {
  // The web host finds bwrap on PATH: give it a PATH with every program of this one but bwrap.
  let savedPath: string | undefined;
  let bin: string;
  test.beforeAll(async () => {
    savedPath = process.env.PATH;
    bin = await mkdtemp(join(tmpdir(), 'deft-e2e-nobwrap-'));
    for (const dir of (savedPath ?? '').split(delimiter).filter(Boolean)) {
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (name !== 'bwrap') await symlink(join(dir, name), join(bin, name)).catch(() => undefined);
      }
    }
    process.env.PATH = bin;
  });
  test.afterAll(async () => {
    process.env.PATH = savedPath;
    await rm(bin, { recursive: true, force: true });
  });

  test('the window says in one line that commands run without an OS sandbox, and how to install it', async ({ deft, mock }, testInfo) => {
    const { page } = deft;
    await configureProvider(page, mock.baseUrl);
    const notice = page.getByRole('status', { name: 'No OS sandbox' });
    await expect(notice).toContainText('Commands run without an OS sandbox');
    await expect(notice).toContainText('apt-get install bubblewrap socat');
    await testInfo.attach('no-sandbox-notice', { body: await page.screenshot(), contentType: 'image/png' });
    await notice.getByRole('button', { name: 'Dismiss the sandbox notice' }).click();
    await expect(notice).toBeHidden();
  });
});
