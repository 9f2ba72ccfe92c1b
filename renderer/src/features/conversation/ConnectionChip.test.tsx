import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { useSettings } from '../../stores/settings';
import { ConnectionChip } from './ConnectionChip';

const workspace = { path: '/srv/app', name: 'app', home: '/h', host: 'web' as const };
afterEach(() => useSettings.setState({ workspace: null }));

describe('the connection chip', () => {
  it('is absent for a local workspace', () => {
    useSettings.getState().setWorkspace(workspace);
    const { container } = render(<ConnectionChip />);
    expect(container.textContent).toBe('');
  });

  it('shows the host, then Reconnecting… and Disconnected as the connection events arrive', () => {
    useSettings.getState().setWorkspace({ ...workspace, remote: { label: 'me@build', state: 'connected' } });
    render(<ConnectionChip />);
    expect(screen.getByRole('status', { name: 'me@build: Connected' })).toBeTruthy();
    act(() => useSettings.getState().setRemote({ label: 'me@build', state: 'reconnecting', detail: 'The SSH connection to me@build was lost.' }));
    const chip = screen.getByRole('status', { name: 'me@build: Reconnecting…' });
    expect(chip.textContent).toContain('Reconnecting…');
    expect(chip.getAttribute('title')).toContain('was lost');
    act(() => useSettings.getState().setRemote({ label: 'me@build', state: 'lost' }));
    expect(screen.getByRole('status', { name: 'me@build: Disconnected' })).toBeTruthy();
  });
});
