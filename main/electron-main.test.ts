/* eslint-disable @typescript-eslint/no-explicit-any -- a hand-written stand-in for electron's API */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../test-support/harness';
import { skillMd } from '../test-support/skills';

// The Electron binary is not available everywhere tests run, so the composition root is exercised
// against a stand-in `electron` module: what matters here is how it configures windows and sessions.
const created: Array<{ options: Record<string, any>; contents: Record<string, any> }> = [];
const calls = {
  sandbox: 0,
  openExternal: [] as string[],
  permission: [] as boolean[],
  opened: [] as string[],
  revealed: [] as string[],
  notified: [] as Array<{ title: string; body: string }>,
};
const ipc = new Map<string, (...a: any[]) => any>();
const rendererPage = new URL('../renderer/index.html', import.meta.url).href;
let windowLoaded: () => void = () => {};
const loaded = new Promise<void>((resolve) => (windowLoaded = resolve));

vi.mock('electron', () => {
  class BrowserWindow {
    webContents: Record<string, any>;
    constructor(readonly options: Record<string, any>) {
      const listeners: Record<string, (...a: any[]) => void> = {};
      this.webContents = {
        id: created.length + 1,
        listeners,
        on: (name: string, fn: (...a: any[]) => void) => (listeners[name] = fn),
        setWindowOpenHandler: (fn: (...a: any[]) => unknown) => (listeners.windowOpen = fn),
        getURL: () => 'file:///out/renderer/index.html',
        isDestroyed: () => false,
        send: () => {},
      };
      created.push({ options, contents: this.webContents });
    }
    once() {}
    on() {}
    show() {}
    isDestroyed() {
      return false;
    }
    loadFile() {
      windowLoaded();
      return Promise.resolve();
    }
  }
  class Notification {
    static isSupported() {
      return true;
    }
    constructor(readonly options: { title: string; body: string }) {}
    on() {}
    show() {
      calls.notified.push({ title: this.options.title, body: this.options.body });
    }
  }
  return {
    Notification,
    nativeTheme: { shouldUseDarkColors: true },
    app: { enableSandbox: () => calls.sandbox++, whenReady: () => Promise.resolve(), on: () => {}, quit: () => {} },
    BrowserWindow,
    dialog: { showOpenDialog: async () => ({ canceled: true, filePaths: [] }), showErrorBox: () => {} },
    ipcMain: { handle: (channel: string, fn: (...a: any[]) => any) => ipc.set(channel, fn) },
    safeStorage: { isEncryptionAvailable: () => false },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (fn: (...a: any[]) => void) => {
          const push = (ok: boolean) => calls.permission.push(ok);
          const page = (url: string) => ({ getURL: () => url });
          fn(page(rendererPage), 'camera', push);
          fn(page(rendererPage), 'clipboard-sanitized-write', push);
          fn(page('https://evil.example/'), 'clipboard-sanitized-write', push);
          fn(null, 'clipboard-sanitized-write', push);
        },
      },
    },
    shell: {
      openExternal: async (url: string) => void calls.openExternal.push(url),
      openPath: async (path: string) => (calls.opened.push(path), ''),
      showItemInFolder: (path: string) => void calls.revealed.push(path),
    },
  };
});

const workspace = await tempDir('deft-electron-ws-');
process.env.DEFT_HOME = await tempDir('deft-electron-home-');
// A skill whose folder is an app bundle, as a cloned repo could ship it.
const bundle = join(workspace, '.deft/skills/tidy.app');
await mkdir(bundle, { recursive: true });
await writeFile(join(bundle, 'SKILL.md'), skillMd('tidy'));
await writeFile(join(workspace, 'notes.md'), '# Notes\n');
await writeFile(join(workspace, 'run.command'), 'echo hi\n');
process.argv.push('--workspace', workspace);
await import('./index');
// A composition root that throws before its window exists would leave this waiting for good: fail instead.
await Promise.race([loaded, new Promise((_, reject) => setTimeout(() => reject(new Error('the Electron main process opened no window')), 15_000))]);
afterAll(() => {
  process.argv.splice(process.argv.indexOf('--workspace'), 2);
});

describe('the Electron composition root', () => {
  it('enables the sandbox and denies every permission request but clipboard writes from its own page', () => {
    expect(calls.sandbox).toBe(1);
    expect(calls.permission).toEqual([false, true, false, false]);
  });

  it('opens the workspace window with isolation, sandbox and no Node in the renderer', () => {
    expect(created).toHaveLength(1);
    const prefs = created[0]!.options.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(prefs.preload).toMatch(/preload[\\/]index\.cjs$/);
    expect(created[0]!.options.title).toContain(workspace);
  });

  it('never navigates away and sends web links to the system browser', () => {
    const { listeners } = created[0]!.contents;
    let prevented = false;
    listeners['will-navigate']!({ preventDefault: () => (prevented = true) }, 'https://example.com/docs');
    expect(prevented).toBe(true);
    expect(listeners.windowOpen!({ url: 'https://example.com/x' })).toEqual({ action: 'deny' });
    expect(listeners.windowOpen!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(calls.openExternal).toEqual(['https://example.com/docs', 'https://example.com/x']);
  });

  it('shows a skill folder in the file manager and never opens it (a folder can be an app bundle)', async () => {
    const contents = created[0]!.contents;
    const rendererUrl = new URL('../renderer/index.html', import.meta.url).href;
    const frame = { url: rendererUrl };
    const reply = await ipc.get('deft:command')!({ sender: { ...contents, mainFrame: frame }, senderFrame: frame }, 'openSkillFolder', { name: 'tidy' });
    expect(reply).toMatchObject({ ok: true, result: { opened: true } });
    expect(calls.opened).toEqual([]);
    expect(calls.revealed).toHaveLength(1);
    expect(calls.revealed[0]).toMatch(/tidy\.app$/);
  });

  it('opens a workspace text file in the system editor, and never a file the system may run', async () => {
    const contents = created[0]!.contents;
    const frame = { url: rendererPage };
    const send = (path: string) => ipc.get('deft:command')!({ sender: { ...contents, mainFrame: frame }, senderFrame: frame }, 'openInEditor', { path });
    expect(await send('notes.md')).toMatchObject({ ok: true, result: { opened: true } });
    expect(calls.opened).toEqual([join(workspace, 'notes.md')]);
    expect(await send('run.command')).toMatchObject({ ok: false });
    expect(await send('../outside.md')).toMatchObject({ ok: false });
    expect(calls.opened).toHaveLength(1);
  });

  it('shows desktop notifications through Electron and paints the first frame in the system theme', async () => {
    const contents = created[0]!.contents;
    const frame = { url: rendererPage };
    const reply = await ipc.get('deft:command')!({ sender: { ...contents, mainFrame: frame }, senderFrame: frame }, 'showNotification', {
      title: 'Deft finished',
      body: 'The tests pass.',
    });
    expect(reply).toMatchObject({ ok: true, result: { shown: true } });
    expect(calls.notified).toEqual([{ title: 'Deft finished', body: 'The tests pass.' }]);
    const bad = await ipc.get('deft:command')!({ sender: { ...contents, mainFrame: frame }, senderFrame: frame }, 'showNotification', { title: 42 });
    expect(bad).toMatchObject({ ok: false });
    expect(created[0]!.options.backgroundColor).toBe('#0f1116');
  });
});
