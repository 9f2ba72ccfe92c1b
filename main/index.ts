import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BrowserWindow, Notification, nativeTheme, type WebContents, app, dialog, safeStorage, session, shell } from 'electron';
import { defaultCapabilities } from './agent/capabilities';
import { DeftCore } from './agent/runtime/core';
import { deftHome } from './agent/infra/platform/home';
import { FileSecretStore, type SecretStore } from './agent/infra/settings/secrets';
import { resolveWorkspace } from './host/compose';
import { electronHost } from './host/hosts';
import { remoteBrowser } from './host/remote-browse';
import { openRemoteForCli, remoteCapabilities } from './host/remote-folder';
import { parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import type { RemoteFolder } from '#infra/environment/ssh/open-remote';
import { registerIpc, sendEvent, sendView } from './host/electron-ipc';
import { windowViews } from './host/core-views';
import { Worktrees } from '#infra/worktrees/worktrees';

const home = deftHome();
const rendererIndex = fileURLToPath(new URL('../renderer/index.html', import.meta.url));
const rendererUrl = pathToFileURL(rendererIndex).href;
const preload = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));
/** Per window: its cores (its folder's, one per worktree it switched to) and which one it shows (host/core-views.ts). */
const windows = new Map<number, { window: BrowserWindow; cores: ReturnType<typeof windowViews<DeftCore>> }>();

/** API keys encrypted with the OS keychain when available (safeStorage); otherwise a 0600 file. */
function secretStore(): SecretStore {
  if (!safeStorage.isEncryptionAvailable()) return FileSecretStore.inHome(home);
  return new FileSecretStore(join(home, 'secrets.safe.json'), {
    kind: 'safe-storage',
    encode: (value) => safeStorage.encryptString(value).toString('base64'),
    decode: (value) => safeStorage.decryptString(Buffer.from(value, 'base64')),
  });
}

const lastWorkspaceFile = join(home, 'last-workspace.json');
function rememberWorkspace(path: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileSync(lastWorkspaceFile, JSON.stringify({ path }) + '\n', { mode: 0o600 });
}
function lastWorkspace(): string | null {
  try {
    const { path } = JSON.parse(readFileSync(lastWorkspaceFile, 'utf8')) as { path?: string };
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

async function chooseFolder(parent?: BrowserWindow): Promise<string | null> {
  const options = { title: 'Open a folder in Deft', properties: ['openDirectory', 'createDirectory'] as Array<'openDirectory' | 'createDirectory'> };
  const result = parent ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}

// *Open remote folder…*: one for the app (a browsing connection outlives the window that opened the dialog).
const browser = remoteBrowser({
  home,
  env: process.env,
  // A remote folder opens in a window of its own, as a local one picked from the sidebar does.
  open: async (folder) => {
    openWindow(folder.workspace, folder);
    return 'window';
  },
});

/** A window on a local folder, or on `remote` (a folder on another machine: its environment, with the capabilities that reach it). */
function openWindow(workspacePath: string, remote?: RemoteFolder): void {
  const workspace = remote ? remote.workspace : resolveWorkspace(workspacePath);
  if (!remote) rememberWorkspace(workspace);
  const window = new BrowserWindow({
    width: 1280,
    height: 840,
    minWidth: 720,
    minHeight: 480,
    title: `Deft — ${remote ? `${remote.environment.label}:${workspace}` : workspace}`,
    // The window's first paint, before the renderer applies the theme: the system's light or dark.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#0f1116' : '#f6f7f9',
    show: false,
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
  });
  // A core on `folder` (the window's, or a worktree's): the window's notifications, dialogs and shell.
  const coreOn = (folder: string, onRemote?: RemoteFolder) =>
    new DeftCore({
      capabilities: onRemote ? remoteCapabilities(defaultCapabilities) : defaultCapabilities,
      home,
      workspace: folder,
      ...(onRemote ? { environment: onRemote.environment, workspaceId: onRemote.id } : {}),
      remoteBrowser: browser,
      host: electronHost,
      secrets: secretStore(),
      pickWorkspace: async () => {
        const chosen = await chooseFolder(window);
        if (chosen) openWindow(chosen);
        return chosen;
      },
      // A worktree Deft made (capabilities/worktrees): shown in this window, by name (its core runs beside this one's);
      // its folder trust is asked there. A remote folder has no worktrees here.
      ...(onRemote ? {} : { openFolder: async () => 'here' as const }),
      // Revealed, never opened: a skill folder from a cloned repo can be an app bundle (macOS runs `x.app/` on open).
      openPath: async (path) => {
        shell.showItemInFolder(path);
        return true;
      },
      // A workspace text file the core has checked (inside, regular, not executable, not a kind the system runs).
      openFile: async (path) => (await shell.openPath(path)) === '',
      // The renderer asks only while the window is in the background; a click brings it to the front.
      notify: async ({ title, body }) => {
        if (!Notification.isSupported() || window.isDestroyed()) return false;
        const notification = new Notification({ title, body, silent: false });
        notification.on('click', () => {
          if (window.isDestroyed()) return;
          if (window.isMinimized()) window.restore();
          window.show();
          window.focus();
        });
        notification.show();
        return true;
      },
    });
  const contents = window.webContents;
  const contentsId = contents.id;
  // One window, several cores (as the web host's pages): the window's folder, and each worktree of its repository it
  // switches to by name (zod-checked; the folder from Deft's records), kept running while the window shows another.
  const cores = windowViews<DeftCore>({
    main: coreOn(workspace, remote),
    viewer: `window-${contentsId}`,
    ...(remote
      ? {}
      : {
          resolve: async (name: string) => {
            const record = await (await Worktrees.of(home, workspace)).folderOf(name);
            return { path: record.path, branch: record.branch };
          },
        }),
    create: (path) => coreOn(path),
    send: (message) => ('view' in message ? sendView(contents, message.view) : sendEvent(contents, message.event)),
  });
  windows.set(contentsId, { window, cores });
  // A reload of the page: it is told again which core it shows.
  contents.on('did-finish-load', () => sendView(contents, cores.views.current));
  hardenContents(contents);
  window.once('ready-to-show', () => window.show());
  window.on('closed', () => {
    windows.delete(contentsId);
    void cores.close().then(() => remote?.environment.close());
  });
  void window.loadFile(rendererIndex);
}

/** No navigation away from the renderer, no new windows (links open in the system browser), no permissions. */
function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (url !== contents.getURL()) {
      event.preventDefault();
      if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    }
  });
  contents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

function argValue(name: '--workspace' | '--remote'): string | null {
  const index = process.argv.indexOf(name);
  return index >= 0 ? (process.argv[index + 1] ?? null) : null;
}

/**
 * `npm start -- --remote HOST:/abs/path`: the window opens on a folder of another machine, as `deft run --remote`
 * and `npm run web -- --remote` do (an unknown host key is refused with the line to add: nobody was asked yet).
 */
async function openRemoteArg(spec: string): Promise<void> {
  try {
    const folder = await openRemoteForCli(parseRemoteSpec(spec), process.env);
    for (const note of folder.notes) console.error(`deft: warning: ${note}`);
    openWindow(folder.workspace, folder);
  } catch (error) {
    dialog.showErrorBox('Deft', `Cannot open ${spec}: ${(error as Error).message}`);
    app.quit();
  }
}

app.enableSandbox();
void app.whenReady().then(async () => {
  const isOwnPage = (url: string) => url.split('#')[0] === rendererUrl;
  // Everything is refused except writing text to the clipboard from our own page (the copy buttons).
  session.defaultSession.setPermissionRequestHandler((contents, permission, callback) =>
    callback(permission === 'clipboard-sanitized-write' && contents !== null && isOwnPage(contents.getURL())),
  );
  registerIpc(
    (contents) => windows.get(contents.id)?.cores.views.core,
    isOwnPage,
    (contents, name) => windows.get(contents.id)?.cores.views.switchTo(name),
  );
  const remoteArg = argValue('--remote');
  if (remoteArg !== null) return openRemoteArg(remoteArg);
  const workspace = argValue('--workspace') ?? lastWorkspace() ?? (await chooseFolder());
  if (!workspace) {
    app.quit();
    return;
  }
  try {
    openWindow(workspace);
  } catch (error) {
    dialog.showErrorBox('Deft', (error as Error).message);
    app.quit();
  }
});

app.on('window-all-closed', () => app.quit());
// Quit only after every core has stopped its turns and processes (SIGTERM with grace) and flushed its logs.
let closing = false;
app.on('before-quit', (event) => {
  if (closing || windows.size === 0) return;
  event.preventDefault();
  closing = true;
  void Promise.allSettled([...windows.values()].map(({ cores }) => cores.close()))
    .then(() => browser.closeAll())
    .then(() => app.quit());
});
