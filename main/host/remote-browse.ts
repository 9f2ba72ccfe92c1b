import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import type { RemoteConnectResult, RemoteListing } from '#protocol';
import { CommandError } from '#contract/errors';
import type { RemoteBrowser } from '#contract/remote-browser';
import { listHostAliases } from '#infra/environment/ssh/host-config';
import { type OpenRemoteOptions, type RemoteFolder, type RemoteHost, connectRemoteHost, enterRemoteFolder } from '#infra/environment/ssh/open-remote';
import { parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import { localUserName } from './remote-folder';
import { readRecentRemotes, rememberRemote } from './remote-recent';

/** At most this many folders in one listing (a hostile or huge folder is cut, and says so). */
export const MAX_LISTED_FOLDERS = 2000;
/** At most this many entries are read from one folder (files included): an endless listing from a hostile server ends. */
export const MAX_READ_ENTRIES = 20_000;
/** Browsing connections kept at once (the oldest is closed for a new one) and how long an unused one stays. */
const MAX_CONNECTIONS = 4;
const IDLE_MS = 10 * 60_000;

export interface RemoteBrowserOptions {
  /** Deft's home on this machine (the recent list). */
  home: string;
  env: Record<string, string | undefined>;
  /** Make `folder` the workspace: in this page (`here`: it reloads) or in a window of its own. */
  open(folder: RemoteFolder): Promise<'here' | 'window'>;
  /** Tests: the reconnect policy. */
  reconnect?: OpenRemoteOptions['reconnect'];
}

/** A name shown as a folder: printable, not `.`/`..` (a name with a line break or an escape sequence is left out). */
function listable(name: string): boolean {
  return name !== '.' && name !== '..' && name.length <= 1024 && !/\p{Cc}/u.test(name) && !name.includes('/');
}

function failure(error: unknown): CommandError {
  const message = error instanceof Error ? error.message : String(error);
  return new CommandError('invalid_request', message.replace(/\p{Cc}(?<!\n)/gu, '?').slice(0, 2000));
}

/**
 * The host's side of *Open remote folder…*: ~/.ssh/config's aliases and the recent list, browsing connections (host
 * keys and passphrases asked through the window), listings capped and limited to names a path can carry, and the
 * chosen folder opened through `open`. No command takes a local path: a listing is of the connection's host only.
 */
export function remoteBrowser(options: RemoteBrowserOptions): RemoteBrowser & { closeAll(): Promise<void> } {
  const userHome = options.env.HOME || homedir();
  const connections = new Map<string, { remote: RemoteHost; hostText: string; timer: ReturnType<typeof setTimeout> }>();
  /** Connects under way that the window named, to stop them. */
  const attempts = new Map<string, AbortController>();
  const drop = async (id: string) => {
    const entry = connections.get(id);
    if (!entry) return;
    connections.delete(id);
    clearTimeout(entry.timer);
    await entry.remote.environment.close().catch(() => {});
  };
  const use = (id: string) => {
    const entry = connections.get(id);
    if (!entry) throw new CommandError('not_found', 'That connection was closed: connect to the host again.');
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void drop(id), IDLE_MS);
    entry.timer.unref?.();
    return entry;
  };
  const addKnownHost = async (line: string) => {
    const dir = join(userHome, '.ssh');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await appendFile(join(dir, 'known_hosts'), `${line}\n`, { mode: 0o600 });
  };

  return {
    listRemoteHosts: async () => ({
      hosts: await listHostAliases({ userHome, localUser: localUserName(options.env) }),
      recent: await readRecentRemotes(options.home),
    }),

    connectRemoteHost: async ({ host, attempt, hostKeys = [], passphrases = {} }): Promise<RemoteConnectResult> => {
      let spec;
      try {
        spec = parseRemoteSpec(`${host}:/`);
      } catch (error) {
        throw failure(error);
      }
      let asked: { host: string; fingerprint: string } | null = null;
      let locked: { file: string; wrong: boolean } | null = null;
      const accept: NonNullable<OpenRemoteOptions['acceptUnknownHost']> = async (label, print, line) => {
        const yes = hostKeys.find((k) => k.host === label && k.fingerprint === print);
        if (yes) {
          if (yes.remember) await addKnownHost(line);
          return true;
        }
        asked ??= { host: label, fingerprint: print };
        return false;
      };
      let remote: RemoteHost;
      const stopper = new AbortController();
      if (attempt) {
        if (attempts.has(attempt)) throw new CommandError('invalid_request', 'That connect attempt is already under way.');
        attempts.set(attempt, stopper);
      }
      try {
        remote = await connectRemoteHost(spec, {
          signal: stopper.signal,
          userHome,
          localUser: localUserName(options.env),
          ...(options.env.SSH_AUTH_SOCK ? { agentSocket: options.env.SSH_AUTH_SOCK } : {}),
          acceptUnknownHost: accept,
          passphrases,
          onLockedKey: (file, wrong) => (locked ??= { file, wrong }),
          ...(options.reconnect ? { reconnect: options.reconnect } : {}),
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        const seen = asked as { host: string; fingerprint: string } | null;
        if (seen && code === 'EHOSTKEY') return { status: 'host-key', host: seen.host, fingerprint: seen.fingerprint };
        const key = locked as { file: string; wrong: boolean } | null;
        if (key && code === 'EACCES') return { status: 'passphrase', key: key.file, wrong: key.wrong };
        throw failure(error);
      } finally {
        if (attempt) attempts.delete(attempt);
      }
      while (connections.size >= MAX_CONNECTIONS) await drop(connections.keys().next().value!);
      const id = `rc-${randomBytes(8).toString('hex')}`;
      const timer = setTimeout(() => void drop(id), IDLE_MS);
      timer.unref?.();
      connections.set(id, { remote, hostText: host, timer });
      return { status: 'connected', connection: id, label: remote.environment.label, home: remote.environment.home, notes: remote.notes };
    },

    listRemoteFolder: async ({ connection, path }): Promise<RemoteListing> => {
      const { environment } = use(connection).remote;
      try {
        const real = await environment.realpath(path);
        if (/\p{Cc}/u.test(real)) throw new Error('That folder’s real path holds control characters: Deft does not open it.');
        const { entries, more } = await environment.readdirCapped(real, MAX_READ_ENTRIES);
        const names = entries.filter((e) => (e.type === 'directory' || e.type === 'symlink') && listable(e.name)).map((e) => e.name);
        names.sort((a, b) => (a.startsWith('.') === b.startsWith('.') ? a.localeCompare(b) : a.startsWith('.') ? 1 : -1));
        const parent = real === '/' ? null : posix.dirname(real);
        return {
          path: real,
          parent,
          folders: names.slice(0, MAX_LISTED_FOLDERS),
          files: entries.length - names.length,
          more: more || names.length > MAX_LISTED_FOLDERS,
        };
      } catch (error) {
        throw failure(error);
      }
    },

    openRemoteWorkspace: async ({ connection, path }) => {
      const entry = use(connection);
      let folder: RemoteFolder;
      try {
        folder = await enterRemoteFolder(entry.remote, path);
        if (/\p{Cc}/u.test(folder.workspace)) throw new Error('That folder’s real path holds control characters: Deft does not open it.');
      } catch (error) {
        throw failure(error);
      }
      // The connection is the workspace's now: no longer the dialog's to close.
      clearTimeout(entry.timer);
      connections.delete(connection);
      await rememberRemote(options.home, entry.hostText, folder.workspace).catch(() => {});
      try {
        return { opened: await options.open(folder) };
      } catch (error) {
        await folder.environment.close().catch(() => {});
        throw failure(error);
      }
    },

    closeRemoteHost: async ({ connection }) => {
      await drop(connection);
      return {};
    },

    cancelRemoteConnect: async ({ attempt }) => {
      attempts.get(attempt)?.abort();
      return {};
    },

    closeAll: async () => {
      for (const stopper of attempts.values()) stopper.abort();
      await Promise.all([...connections.keys()].map(drop));
    },
  };
}
