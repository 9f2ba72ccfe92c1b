import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { LspStatus } from '#protocol';
import { core } from '../../testing/core';
import { CodeIntelligenceSettings } from './CodeIntelligenceSettings';

// Settings → Code intelligence on a remote folder (issue 33 on issue 29's remote folders): where the servers run,
// that there is no sandbox there, and what to install there for a language without a server.

const missing =
  'No Python language server on dev@build: pyright-langserver is not on its PATH. Install it there, e.g. `npm install -g pyright` or `pip install pyright`.';

const remote: LspStatus = {
  enabled: true,
  trusted: true,
  host: 'dev@build',
  servers: [{ id: 'typescript', languages: ['typescript', 'javascript'], source: 'builtin', state: 'running', sandboxed: false, crashes: 0 }],
  disabledLanguages: [],
  problems: [missing],
};

describe('Code intelligence settings', () => {
  it('on a remote folder says the servers run there unsandboxed, and what to install there', async () => {
    core.reply('lspStatus', () => remote);
    render(<CodeIntelligenceSettings />);
    expect(
      await screen.findByText(/This folder is on dev@build: its language servers are found and run there, in its OS sandbox when it has one\./),
    ).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Problems with language servers' })).getByText(missing)).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Language servers' })).getByText(/Running · not sandboxed/)).toBeTruthy();
  });

  it('on this machine says nothing of a host', async () => {
    const { host: _host, ...local } = remote;
    core.reply('lspStatus', () => ({ ...local, problems: [] }));
    render(<CodeIntelligenceSettings />);
    expect(await screen.findByText(/Running · sandboxed|Running · not sandboxed/)).toBeTruthy();
    expect(screen.queryByText(/This folder is on/)).toBeNull();
  });
});
