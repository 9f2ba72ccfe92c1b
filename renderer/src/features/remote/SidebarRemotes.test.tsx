import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { core } from '../../testing/core';
import { useRemoteDialog } from '../../stores/remote';
import { useSettings } from '../../stores/settings';
import { RemoteLayer } from './RemoteFolderDialog';
import { SidebarRemotes } from './SidebarRemotes';

// Issue 29: the sidebar remembers the remote folders opened before; a click reconnects through the dialog.

const recent = [
  { host: 'buildbox', path: '/srv/app', label: 'buildbox:/srv/app' },
  { host: 'me@gpu:2222', path: '/home/me/models', label: 'me@gpu:2222:/home/me/models' },
];

afterEach(() => {
  core.reset();
  useRemoteDialog.setState({ open: false, start: null });
  useSettings.setState({ workspace: null });
});

describe('the sidebar’s remote folders', () => {
  it('lists them, marks the one open now, and a click connects to that host and goes to the folder', async () => {
    useSettings.getState().setWorkspace({ path: '/srv/app', name: 'app', home: '/h', host: 'web', remote: { label: 'me@10.0.0.5', state: 'connected' } });
    core.reply('listRemoteHosts', () => ({ hosts: [], recent }));
    core.reply('connectRemoteHost', () => ({ status: 'connected', connection: 'rc-0123456789abcdef', label: 'me@gpu:2222', home: '/home/me', notes: [] }));
    core.reply('listRemoteFolder', (input: { path: string }) => ({ path: input.path, parent: '/home/me', folders: [], files: 3, more: false }));
    render(
      <>
        <SidebarRemotes />
        <RemoteLayer />
      </>,
    );
    const list = await screen.findByRole('region', { name: 'Remote folders' });
    const open = within(list).getByRole('button', { name: 'buildbox: app' });
    expect(open.getAttribute('aria-current')).toBe('true');
    expect((open as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(within(list).getByRole('button', { name: 'me@gpu:2222: models' }));
    await screen.findByRole('list', { name: 'Folders in /home/me/models' });
    expect(core.inputsOf('connectRemoteHost')).toEqual([{ host: 'me@gpu:2222', attempt: expect.stringMatching(/^ra-/), hostKeys: [], passphrases: {} }]);
    expect(core.inputsOf('listRemoteFolder')).toEqual([{ connection: 'rc-0123456789abcdef', path: '/home/me/models' }]);
  });

  it('shows nothing when no remote folder was opened', async () => {
    core.reply('listRemoteHosts', () => ({ hosts: [], recent: [] }));
    const { container } = render(<SidebarRemotes />);
    await Promise.resolve();
    expect(container.textContent).toBe('');
  });
});
