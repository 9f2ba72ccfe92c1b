import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { core } from '../../testing/core';
import { useRemoteDialog } from '../../stores/remote';
import { RemoteFolderDialog } from './RemoteFolderDialog';

// Issue 29: the window's Open remote folder… — what each answer sends (an opaque connection id and remote paths,
// never a local one), and what the host's answers show.

const PRINT = `SHA256:${'k'.repeat(43)}`;
const ATTEMPT = expect.stringMatching(/^ra-[0-9a-f]{16}$/);
const listing = (path: string, folders: string[]) => ({ path, parent: path === '/' ? null : '/', folders, files: 1, more: false });

afterEach(() => {
  core.reset();
  useRemoteDialog.setState({ open: false });
});

describe('Open remote folder…', () => {
  it('asks about an unknown host key, sends only the fingerprint shown, browses and opens the folder', async () => {
    core.reply('listRemoteHosts', () => ({ hosts: [{ alias: 'devbox', detail: 'me@10.0.0.5' }], recent: [] }));
    let calls = 0;
    core.reply('connectRemoteHost', () =>
      ++calls === 1
        ? { status: 'host-key', host: 'me@10.0.0.5', fingerprint: PRINT }
        : { status: 'connected', connection: 'rc-0123456789abcdef', label: 'me@10.0.0.5', home: '/home/me', notes: [] },
    );
    core.reply('listRemoteFolder', (input: { path: string }) => listing(input.path === '/home/me' ? '/home/me' : '/home/me/app', ['app', 'notes']));
    core.reply('openRemoteWorkspace', () => ({ opened: 'window' }));
    render(<RemoteFolderDialog />);
    await userEvent.click(await screen.findByRole('button', { name: /devbox/ }));
    const key = await screen.findByRole('group', { name: 'Unknown host key' });
    expect(key.textContent).toContain(PRINT);
    expect(within(key).getByRole('button', { name: 'Reject' })).toBe(document.activeElement);
    await userEvent.click(within(key).getByRole('button', { name: 'Accept once' }));
    const folders = await screen.findByRole('list', { name: 'Folders in /home/me' });
    expect(core.inputsOf('connectRemoteHost')).toEqual([
      { host: 'devbox', attempt: ATTEMPT, hostKeys: [], passphrases: {} },
      { host: 'devbox', attempt: ATTEMPT, hostKeys: [{ host: 'me@10.0.0.5', fingerprint: PRINT, remember: false }], passphrases: {} },
    ]);
    await userEvent.click(within(folders).getByRole('button', { name: 'app' }));
    await screen.findByRole('list', { name: 'Folders in /home/me/app' });
    await userEvent.click(screen.getByRole('button', { name: 'Open app' }));
    expect(core.inputsOf('openRemoteWorkspace')).toEqual([{ connection: 'rc-0123456789abcdef', path: '/home/me/app' }]);
  });

  it('a rejected key connects nothing and says so; a passphrase is asked and sent for its key', async () => {
    core.reply('listRemoteHosts', () => ({ hosts: [], recent: [{ host: 'me@h:2222', path: '/srv/app', label: 'me@h:2222:/srv/app' }] }));
    core.reply('connectRemoteHost', (input: { passphrases?: Record<string, string> }) =>
      input.passphrases?.['/k/id'] ? { status: 'host-key', host: 'me@h:2222', fingerprint: PRINT } : { status: 'passphrase', key: '/k/id', wrong: false },
    );
    render(<RemoteFolderDialog />);
    await userEvent.click(await screen.findByRole('button', { name: /me@h:2222:\/srv\/app/ }));
    const field = await screen.findByLabelText(/Passphrase for/);
    expect(field).toBe(document.activeElement);
    await userEvent.type(field, 'open sesame{Enter}');
    expect(core.inputsOf('connectRemoteHost').at(-1)).toEqual({ host: 'me@h:2222', attempt: ATTEMPT, hostKeys: [], passphrases: { '/k/id': 'open sesame' } });
    await userEvent.click(await screen.findByRole('button', { name: 'Reject' }));
    expect((await screen.findByRole('alert')).textContent).toContain('the host key of me@h:2222 was not accepted');
    expect(core.inputsOf('listRemoteFolder')).toEqual([]);
  });

  it('shows why a connection failed, in the dialog', async () => {
    core.reply('listRemoteHosts', () => ({ hosts: [], recent: [] }));
    core.reply('connectRemoteHost', () => {
      throw new Error('Could not connect to me@nowhere: getaddrinfo ENOTFOUND nowhere');
    });
    render(<RemoteFolderDialog />);
    await userEvent.type(screen.getByRole('textbox', { name: 'Host' }), 'me@nowhere{Enter}');
    expect((await screen.findByRole('alert')).textContent).toContain('ENOTFOUND');
    expect(screen.getByRole('textbox', { name: 'Host' })).toBeTruthy();
  });

  it('a slow connect can be stopped: the host is told which attempt, and the dialog is back at the host', async () => {
    core.reply('listRemoteHosts', () => ({ hosts: [{ alias: 'slowbox', detail: 'me@10.0.0.9' }], recent: [] }));
    let answer: (value: unknown) => void = () => {};
    core.reply('connectRemoteHost', () => new Promise((resolve) => (answer = resolve)));
    core.reply('cancelRemoteConnect', () => {
      answer({ status: 'connected', connection: 'rc-00000000000000aa', label: 'me@10.0.0.9', home: '/home/me', notes: [] });
      return {};
    });
    core.reply('closeRemoteHost', () => ({}));
    render(<RemoteFolderDialog />);
    await userEvent.click(await screen.findByRole('button', { name: /slowbox/ }));
    expect((await screen.findByRole('status')).textContent).toBe('Connecting to slowbox…');
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await screen.findByText('Stopped connecting to slowbox.')).toBeTruthy();
    const attempt = core.inputsOf('connectRemoteHost')[0] as { attempt: string };
    expect(core.inputsOf('cancelRemoteConnect')).toEqual([{ attempt: attempt.attempt }]);
    // A connection that came up anyway is closed, and nothing is browsed.
    expect(core.inputsOf('closeRemoteHost')).toEqual([{ connection: 'rc-00000000000000aa' }]);
    expect(core.inputsOf('listRemoteFolder')).toEqual([]);
    expect(screen.getByRole('textbox', { name: 'Host' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
  });
});
