import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { type TestSshd, startSshd } from '../test-support/sshd';
import { configureProvider, expect, send, test as base } from './fixtures/deft';
import { answer, call, toolStep } from './fixtures/screens';

// Issue 29: Open remote folder… from the window — a host from ~/.ssh/config, its unknown key accepted once, a
// folder browsed to and opened, and a turn that edits a file there (diff card in the window, file changed there).

const tempDir = async (prefix: string) => realpath(await mkdtemp(join(tmpdir(), prefix)));

const test = base.extend<{ sshd: TestSshd; sshHome: string }>({
  sshd: async ({}, use) => {
    const sshd = await startSshd();
    if (!sshd) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
    await use(sshd);
    await sshd.stop();
  },
  // The host's own HOME: an ~/.ssh/config naming the server, and no known_hosts (its key is unknown).
  sshHome: async ({ sshd }, use) => {
    const home = await tempDir('deft-e2e-sshhome-');
    await mkdir(join(home, '.ssh'), { mode: 0o700 });
    await writeFile(join(home, 'deft_key'), sshd.privateKey, { mode: 0o600 });
    await writeFile(
      join(home, '.ssh', 'config'),
      `Host buildbox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.username}\n  IdentityFile ~/deft_key\n  IdentitiesOnly yes\n`,
    );
    await use(home);
  },
  hostEnv: async ({ sshHome }, use) => use({ HOME: sshHome }),
});
test.use({ permissionMode: 'accept-edits' });
test.skip(({ deftHost }) => deftHost !== 'web', 'The app opens a remote folder in a window of its own; this spec drives the web host.');

test('open a remote folder through the dialog, accept its host key, and edit a file there', async ({ deft, mock, sshd, sshHome }) => {
  const { page } = deft;
  const remoteDir = await tempDir('deft-e2e-remote-');
  await writeFile(join(remoteDir, 'rates.js'), 'export const rate = 3;\n');
  await configureProvider(page, mock.baseUrl);

  await page.getByRole('button', { name: 'Open remote folder…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open remote folder' });
  await dialog.getByRole('button', { name: /buildbox/ }).click();
  const print = `SHA256:${createHash('sha256')
    .update(Buffer.from(sshd.hostKeyLine.split(' ')[1]!, 'base64'))
    .digest('base64')
    .replace(/=+$/, '')}`;
  await expect(dialog.getByRole('group', { name: 'Unknown host key' })).toContainText(print);
  await expect(dialog.getByRole('button', { name: 'Reject' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Accept once' }).click();
  // Browsing starts in the home folder there; a path is typed to go elsewhere.
  const path = dialog.getByRole('textbox', { name: 'Folder' });
  await expect(path).toBeVisible();
  await path.fill(remoteDir);
  await path.press('Enter');
  await expect(dialog.getByRole('list', { name: `Folders in ${remoteDir}` })).toBeAttached();
  await dialog.getByRole('button', { name: `Open ${basename(remoteDir)}` }).click();

  // The page reloads onto the remote workspace: its name, the connection mark and the host's chip.
  await expect(page.getByRole('navigation', { name: 'Sessions' }).getByRole('img', { name: 'Remote folder, over SSH' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('status', { name: new RegExp(`${sshd.username}@127.0.0.1:${sshd.port}: Connected`) })).toBeVisible();
  // The sidebar remembers it, marked as the folder open now.
  const remembered = page.getByRole('region', { name: 'Remote folders' }).getByRole('button', { name: `buildbox: ${basename(remoteDir)}` });
  await expect(remembered).toHaveAttribute('aria-current', 'true');
  // Worktrees are not offered on a remote folder: that is no error for the window to show.
  await expect(page.getByText(/listWorktrees/)).toHaveCount(0);
  // Only "once": nothing was written to known_hosts.
  expect(await readFile(join(sshHome, '.ssh', 'known_hosts'), 'utf8').catch(() => '')).toBe('');

  mock.enqueue(
    toolStep(call('Read', { path: 'rates.js' })),
    toolStep(call('Edit', { path: 'rates.js', old_string: 'rate = 3', new_string: 'rate = 4' })),
    answer('Raised the rate.'),
  );
  await send(page, 'Raise the rate');
  await expect(page.getByText('Raised the rate.')).toBeVisible({ timeout: 15_000 });
  const edit = page.getByRole('group', { name: 'Edit tool call' });
  await expect(edit.locator('.diff')).toContainText('rate = 4');
  expect(await readFile(join(remoteDir, 'rates.js'), 'utf8')).toBe('export const rate = 4;\n');
  // The model was told the remote path.
  expect(JSON.stringify(mock.requests.at(-1))).toContain(remoteDir);
});
