import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionSummary } from '#protocol';

// The bridge is window.deft (Electron's preload); here, stand-ins for the commands these actions send.
const session = (id: string): SessionSummary => ({ id, title: id, workspace: '/w', createdAt: 0, updatedAt: 0, turns: 0, running: false });
const bridge = {
  createSession: vi.fn(async () => ({ session: session('new') })),
  openSession: vi.fn(async ({ sessionId }: { sessionId: string }) => ({ session: session(sessionId), events: [], reset: false, problems: [] })),
  sendPrompt: vi.fn(async () => ({})),
  cancelTurn: vi.fn(async () => ({})),
};

const load = async () => {
  const actions = await import('./sessions');
  const { attempt } = await import('./attempt');
  const { useSessions } = await import('../stores/sessions');
  const { useUi } = await import('../stores/ui');
  return { ...actions, attempt, useSessions, useUi };
};

beforeEach(() => {
  vi.resetModules();
  vi.clearAllMocks();
  vi.stubGlobal('window', { deft: bridge });
  vi.stubGlobal('localStorage', { getItem: () => null, setItem: () => {} });
});
afterEach(() => vi.unstubAllGlobals());

describe('commands and their failures', () => {
  it('returns what a command gave, or shows why it failed in the banner and returns the fallback', async () => {
    const { attempt, useUi } = await load();
    expect(await attempt(async () => 42, 0)).toBe(42);
    expect(useUi.getState().banner).toBeNull();
    expect(await attempt(() => Promise.reject(new Error('[provider_auth] The API key was rejected.')), 0)).toBe(0);
    expect(useUi.getState().banner).toEqual({ message: 'The API key was rejected.', code: 'provider_auth' });
    expect(await attempt(() => Promise.reject(new Error('boom')))).toBeUndefined();
    expect(useUi.getState().banner).toEqual({ message: 'boom', code: 'internal' });
  });

  it('creates one session however many commands ask for one at the same moment', async () => {
    const { ensureSession, sendPrompt, useSessions } = await load();
    const [a, b, sent] = await Promise.all([ensureSession(), ensureSession(), sendPrompt('Hello')]);
    expect([a, b]).toEqual(['new', 'new']);
    expect(sent).toBe(true);
    expect(bridge.createSession).toHaveBeenCalledTimes(1);
    expect(bridge.sendPrompt).toHaveBeenCalledWith({ sessionId: 'new', text: 'Hello' });
    expect(useSessions.getState().currentId).toBe('new');
  });

  it('a prompt sent right after New session waits for the new session instead of landing in the one left', async () => {
    const { newSession, openSession, sendPrompt, useSessions } = await load();
    await openSession('old');
    let made!: () => void;
    bridge.createSession.mockImplementationOnce(() => new Promise((resolve) => (made = () => resolve({ session: session('new') }))));
    const creating = newSession();
    expect(useSessions.getState().currentId).toBeNull();
    const sent = sendPrompt('For the new one');
    await Promise.resolve();
    expect(bridge.sendPrompt).not.toHaveBeenCalled();
    made();
    expect(await creating).toBe('new');
    expect(await sent).toBe(true);
    expect(bridge.sendPrompt).toHaveBeenCalledWith({ sessionId: 'new', text: 'For the new one' });
    expect(bridge.createSession).toHaveBeenCalledTimes(1);
  });

  it('does nothing for a command on the open session when none is open', async () => {
    const { cancelTurn } = await load();
    await cancelTurn();
    expect(bridge.cancelTurn).not.toHaveBeenCalled();
  });

  it('says a prompt was not sent (so the composer keeps it), and stops loading when a session cannot be opened', async () => {
    const { openSession, sendPrompt, useSessions, useUi } = await load();
    bridge.openSession.mockRejectedValueOnce(new Error('[not_found] No such session.'));
    await openSession('gone');
    expect(useSessions.getState()).toMatchObject({ currentId: 'gone', loading: false });
    expect(useUi.getState().banner?.message).toBe('No such session.');
    bridge.sendPrompt.mockRejectedValueOnce(new Error('[busy] A turn is running.'));
    expect(await sendPrompt('Again')).toBe(false);
    expect(useUi.getState().banner).toEqual({ message: 'A turn is running.', code: 'busy' });
  });
});
