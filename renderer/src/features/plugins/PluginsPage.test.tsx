import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { PluginOverview } from '#protocol';
import { core } from '../../testing/core';
import { PluginsPage } from './PluginsPage';

// Settings → Plugins: a workspace's suggested plugins are offered, one click each, never installed by themselves.

const offered = (installed: boolean): PluginOverview => ({
  marketplaces: [
    {
      name: 'acme',
      source: '/m',
      kind: 'folder',
      plugins: [{ name: 'tools', marketplace: 'acme', from: './tools', installed }],
    },
  ],
  installed: [],
  suggested: installed ? [] : ['tools@acme', 'lint@elsewhere'],
});

afterEach(() => core.reset());

describe('suggested plugins', () => {
  it('offers each one the workspace suggests: Install for one in a known marketplace, how to get the other; nothing installs unasked', async () => {
    core.reply('listPlugins', () => offered(false));
    core.reply('installPlugin', () => ({ overview: offered(true) }));
    render(<PluginsPage />);
    const suggestions = await screen.findByRole('region', { name: 'Suggested by this workspace' });
    expect(within(suggestions).getByText('add the marketplace elsewhere to install it')).toBeTruthy();
    expect(core.inputsOf('installPlugin')).toEqual([]);
    await userEvent.click(within(suggestions).getByRole('button', { name: 'Install tools' }));
    expect(core.inputsOf('installPlugin')).toEqual([{ ref: 'tools@acme' }]);
    expect(screen.queryByRole('region', { name: 'Suggested by this workspace' })).toBeNull();
  });
});
