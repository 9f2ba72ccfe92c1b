import { beforeEach, describe, expect, it, vi } from 'vitest';

const handlers = new Map<string, (...args: unknown[]) => unknown>();
vi.mock('electron', () => ({
  ipcMain: { handle: (channel: string, fn: (...args: unknown[]) => unknown) => handlers.set(channel, fn) },
}));

const { registerIpc } = await import('./electron-ipc');
const { IPC_COMMAND_CHANNEL, IPC_VIEW_CHANNEL } = await import('#protocol');

const OUR_URL = 'file:///app/out/renderer/index.html';
const core = { handlers: { listSessions: async () => ({ sessions: [] }) } };

function event(options: { frameUrl?: string; subframe?: boolean; knownWindow?: boolean } = {}) {
  const mainFrame = { url: options.frameUrl ?? OUR_URL };
  const sender = { id: options.knownWindow === false ? 99 : 1, mainFrame };
  return { sender, senderFrame: options.subframe ? { url: OUR_URL } : mainFrame };
}

beforeEach(() => {
  handlers.clear();
  registerIpc(
    (contents) => ((contents as unknown as { id: number }).id === 1 ? (core as never) : undefined),
    (url) => url === OUR_URL,
    (contents, name) =>
      (contents as unknown as { id: number }).id === 1 ? Promise.resolve({ worktree: { name: String(name), branch: `deft/${String(name)}` } }) : undefined,
  );
});

describe('Electron IPC', () => {
  const invoke = (e: unknown, name: unknown, input: unknown) => handlers.get(IPC_COMMAND_CHANNEL)!(e, name, input);

  it('serves a valid command from our own top frame', async () => {
    expect(await invoke(event(), 'listSessions', {})).toEqual({ ok: true, result: { sessions: [] } });
  });

  it('refuses subframes, foreign pages and unknown windows', async () => {
    for (const e of [event({ subframe: true }), event({ frameUrl: 'https://evil.example/' }), event({ knownWindow: false })]) {
      expect(await invoke(e, 'listSessions', {})).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
  });

  it('validates the command and its input against the protocol', async () => {
    expect(await invoke(event(), 'eval', 'process.exit()')).toMatchObject({ ok: false, error: { message: 'Unknown command "eval".' } });
    expect(await invoke(event(), 'openSession', { sessionId: { $gt: '' } })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('switches a window to another core only for our own top frame', async () => {
    const view = (e: unknown, name: unknown) => handlers.get(IPC_VIEW_CHANNEL)!(e, name);
    expect(await view(event(), 'para')).toEqual({ worktree: { name: 'para', branch: 'deft/para' } });
    for (const e of [event({ subframe: true }), event({ frameUrl: 'https://evil.example/' }), event({ knownWindow: false })]) {
      expect(await view(e, 'para')).toEqual({ refused: 'Refused: this frame may not talk to Deft.' });
    }
  });
});
