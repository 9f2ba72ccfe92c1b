import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { HooksOverview, SandboxSettingsView } from '#protocol';
import { core } from '../../../testing/core';
import { SESSION_ID, openSession } from '../../../testing/session';
import { useHooks } from '../../../stores/hooks';
import { HooksSettings } from '../../hooks/HooksSettings';
import { SandboxPage } from './SandboxPage';
import { SessionGrants } from './SessionGrants';

const empty = { allowWrite: [], denyRead: [], allowedDomains: [] };
const view = (over: Partial<SandboxSettingsView> = {}): SandboxSettingsView => ({
  status: { available: false, enabled: false, reason: 'bubblewrap (bwrap) is not installed', install: 'sudo apt-get install bubblewrap socat' },
  trusted: false,
  files: { user: '/home/me/.deft/settings.json', project: '/w/.deft/settings.json', local: '/w/.deft/settings.local.json' },
  sources: { user: { ...empty, allowWrite: ['~/.cache/pip'] }, project: empty, local: empty },
  effective: { enabled: true, autoAllow: true, ...empty },
  problems: [],
  ignored: [],
  ...over,
});

describe('Settings → Sandbox', () => {
  it('says why it is off and how to install it; adds a writable folder to your file; refuses an empty or too wide one', async () => {
    core.reply('getSandboxSettings', () => view());
    core.reply('setSandboxSettings', (input: { allowWrite?: string[] }) =>
      view({ sources: { user: { ...empty, allowWrite: input.allowWrite ?? [] }, project: empty, local: empty } }),
    );
    render(<SandboxPage />);
    expect(await screen.findByText('Unavailable')).toBeTruthy();
    expect(screen.getByText(/bubblewrap \(bwrap\) is not installed/)).toBeTruthy();
    expect(screen.getByText('sudo apt-get install bubblewrap socat')).toBeTruthy();
    const field = screen.getByLabelText('New entry for Writable folders');
    await userEvent.type(field, '/{Enter}');
    expect(screen.getByRole('alert').textContent).toContain('name a folder');
    expect(core.inputsOf('setSandboxSettings')).toEqual([]);
    await userEvent.clear(field);
    await userEvent.type(field, '~/.cache/npm{Enter}');
    expect(core.inputsOf('setSandboxSettings')).toEqual([{ source: 'user', allowWrite: ['~/.cache/pip', '~/.cache/npm'] }]);
    expect(await screen.findByText('~/.cache/npm')).toBeTruthy();
  });

  it('a switch shows its new state at once and saves it to the chosen file', async () => {
    core.reply('getSandboxSettings', () => view({ status: { available: true, enabled: true, kind: 'bubblewrap' } }));
    core.reply('setSandboxSettings', () => view({ status: { available: true, enabled: false, kind: 'bubblewrap', reason: 'Turned off by settings.' } }));
    render(<SandboxPage />);
    const box = await screen.findByLabelText<HTMLInputElement>('Run commands in the sandbox where it is available');
    expect(box.checked).toBe(true);
    await userEvent.click(box);
    expect(core.inputsOf('setSandboxSettings')).toEqual([{ source: 'user', enabled: false }]);
    expect(await screen.findByText('Off')).toBeTruthy();
  });

  it('a remote folder’s sandbox says what differs there', async () => {
    const note = 'Bash commands run in bubblewrap on me@build: writes only in the workspace and the folders below, and no network.';
    core.reply('getSandboxSettings', () => view({ status: { available: true, enabled: true, kind: 'bubblewrap', note } }));
    render(<SandboxPage />);
    expect(await screen.findByText(new RegExp(`— ${note}`))).toBeTruthy();
    expect(screen.queryByText(/the network only to allowed hosts/)).toBeNull();
  });

  it('locks a workspace file until the folder is trusted', async () => {
    core.reply('getSandboxSettings', () => view());
    render(<SandboxPage />);
    await userEvent.selectOptions(await screen.findByLabelText('Sandbox settings file'), 'local');
    expect(screen.getByText(/This folder is not trusted/)).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>('New entry for Allowed hosts').disabled).toBe(true);
  });
});

describe('Settings → Permissions: this session', () => {
  it('lists the grants and revokes one', async () => {
    openSession([]);
    core.reply('listSessionGrants', () => ({ rules: ['Bash(npm test:*)'], domains: ['registry.npmjs.org'] }));
    core.reply('revokeSessionGrant', () => ({ rules: [], domains: ['registry.npmjs.org'] }));
    render(<SessionGrants />);
    const list = await screen.findByRole('list', { name: 'Allowed for this session' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(2);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke Bash(npm test:*)' }));
    expect(core.inputsOf('revokeSessionGrant')).toEqual([{ sessionId: SESSION_ID, kind: 'rule', value: 'Bash(npm test:*)' }]);
    expect(await screen.findByText('registry.npmjs.org')).toBeTruthy();
    expect(screen.queryByText('Bash(npm test:*)')).toBeNull();
  });
});

describe('Settings → Hooks', () => {
  const overview: HooksOverview = {
    hooks: [
      {
        event: 'PreToolUse',
        matcher: 'Bash',
        command: './check.sh',
        timeoutSec: 60,
        source: 'user',
        file: '/home/me/.deft/settings.json',
        active: true,
        sandboxed: false,
        group: 0,
        index: 0,
      },
    ],
    problems: [],
    trusted: false,
  };

  it('tests a hook and shows its exit code and decision; turns it off', async () => {
    openSession([]);
    useHooks.getState().setOverview(overview);
    core.reply('listHooks', () => overview);
    core.reply('testHook', () => ({
      input: '{}',
      exitCode: 2,
      stdout: '',
      stderr: 'no rm',
      timedOut: false,
      sandboxed: false,
      decision: 'blocked',
      message: 'no rm',
    }));
    core.reply('setHookDisabled', () => ({ ...overview, hooks: [{ ...overview.hooks[0]!, disabled: true }] }));
    render(<HooksSettings />);
    await userEvent.click(screen.getByRole('button', { name: 'Test PreToolUse hook ./check.sh' }));
    const result = await screen.findByRole('status', { name: 'Test result' });
    expect(result.textContent).toContain('exit code 2');
    expect(result.textContent).toContain('blocked');
    const ref = { source: 'user', event: 'PreToolUse', group: 0, index: 0, command: './check.sh' };
    expect(core.inputsOf('testHook')).toEqual([{ ...ref, sessionId: SESSION_ID }]);
    await userEvent.click(screen.getByRole('button', { name: 'Turn off PreToolUse hook ./check.sh' }));
    expect(core.inputsOf('setHookDisabled')).toEqual([{ ...ref, disabled: true }]);
    expect(await screen.findByText('Turned off')).toBeTruthy();
  });

  it('adds a hook to your settings', async () => {
    useHooks.getState().setOverview({ hooks: [], problems: [], trusted: false });
    core.reply('listHooks', () => ({ hooks: [], problems: [], trusted: false }));
    core.reply('addHook', () => overview);
    render(<HooksSettings />);
    await userEvent.type(screen.getByLabelText('Tools'), 'Bash');
    await userEvent.type(screen.getByLabelText('Command'), './check.sh');
    await userEvent.click(screen.getByRole('button', { name: 'Add hook' }));
    expect(core.inputsOf('addHook')).toEqual([{ source: 'user', event: 'PreToolUse', matcher: 'Bash', command: './check.sh' }]);
  });
});
