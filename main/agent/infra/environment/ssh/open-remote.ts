import { readFile } from 'node:fs/promises';
// ssh2 is CommonJS: node's ESM loader sees `Client` as a named export but not `utils`.
import ssh2 from 'ssh2';
import { EnvironmentError, isMissing } from '#contract/environment';
import type { SshIdentity, SshTarget } from './dial';
import { type HostConfigOptions, resolveHost } from './host-config';
import { type RemoteSpec, parseRemoteSpec, remoteFolderId } from './remote-spec';
import { type ReconnectPolicy, SshEnvironment } from './ssh-environment';

export interface OpenRemoteOptions extends HostConfigOptions {
  /** Asked about a host known_hosts does not list (the window asks the user); absent: refused with the line to add. */
  acceptUnknownHost?: SshTarget['acceptUnknownHost'];
  reconnect?: ReconnectPolicy;
  /** Passphrases the user typed, by key file (the window asks): such a key is offered instead of skipped. */
  passphrases?: Readonly<Record<string, string>>;
  /** Hears each key file skipped for want of its passphrase (or for a wrong one: `wrong`). */
  onLockedKey?: (file: string, wrong: boolean) => void;
  /** Stops a connect still under way (the window's Stop): it fails with ECANCELED. */
  signal?: AbortSignal;
}

/** A folder on another machine, open: its environment, its real path there, and the key it is kept under here. */
export interface RemoteFolder {
  environment: SshEnvironment;
  /** The folder's real path on that machine. */
  workspace: string;
  /**
   * `ssh://user@host:port/path` (the host as the user named it: an alias stays an alias, so reopening goes through
   * the config again): the key its sessions are kept under on this machine.
   */
  id: string;
  /** Things worth saying once (keys skipped for their passphrase…). */
  notes: string[];
}

const MAX_JUMPS = 8;

async function identities(files: readonly string[], configured: boolean, notes: string[], options: OpenRemoteOptions): Promise<SshIdentity[]> {
  const found: SshIdentity[] = [];
  for (const file of files) {
    const key = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (configured && error.code !== 'ENOENT') notes.push(`Could not read the key ${file}: ${error.message}`);
      return null;
    });
    if (!key) continue;
    const passphrase = options.passphrases?.[file];
    const parsed = ssh2.utils.parseKey(key, passphrase);
    if (parsed instanceof Error && /passphrase|decrypt|bad/i.test(parsed.message) && options.onLockedKey) {
      options.onLockedKey(file, passphrase !== undefined);
      continue;
    }
    if (!(parsed instanceof Error) && passphrase !== undefined) {
      found.push({ key, passphrase, file });
      continue;
    }
    if (parsed instanceof Error) {
      // Headless there is nobody to type a passphrase: such a key is skipped (the SSH agent can hold it).
      notes.push(
        /passphrase/i.test(parsed.message)
          ? `The key ${file} has a passphrase and nobody can type it here: it was skipped (add it to your SSH agent with ssh-add).`
          : `The key ${file} could not be read: ${parsed.message}`,
      );
      continue;
    }
    found.push({ key, file });
  }
  return found;
}

/** The target for `host` with its config's settings, and its jump hosts resolved the same way (nearest first). */
async function targetFor(spec: { host: string; user?: string; port?: number }, options: OpenRemoteOptions, notes: string[], depth = 0): Promise<SshTarget> {
  if (depth > MAX_JUMPS)
    throw new EnvironmentError('ELOOP', `More than ${MAX_JUMPS} jump hosts (ProxyJump) on the way to ${spec.host}: is there a loop in ~/.ssh/config?`);
  const settings = await resolveHost(spec.host, spec, options);
  const jumps: SshTarget[] = [];
  for (const hop of settings.proxyJump) {
    const parsed = parseRemoteSpec(`${hop.replace(/^ssh:\/\//i, 'ssh://')}${/^ssh:\/\//i.test(hop) ? '/' : ':/'}`);
    const hopTarget = await targetFor(parsed, options, notes, depth + 1);
    // A hop's own jump hosts come before it.
    jumps.push(...(hopTarget.jumps ?? []), { ...hopTarget, jumps: [] });
  }
  if (jumps.length > MAX_JUMPS) throw new EnvironmentError('ELOOP', `More than ${MAX_JUMPS} jump hosts (ProxyJump) on the way to ${spec.host}.`);
  const agent = settings.identitiesOnly ? null : settings.identityAgent;
  return {
    host: settings.hostName,
    port: settings.port,
    username: settings.user ?? options.localUser,
    identities: await identities(settings.identityFiles, settings.identitiesConfigured, notes, options),
    ...(agent ? { agent } : {}),
    knownHostsFiles: settings.knownHostsFiles,
    ...(options.acceptUnknownHost ? { acceptUnknownHost: options.acceptUnknownHost } : {}),
    jumps,
  };
}

/** A host connected (its config and keys as for a folder), not yet in a folder: the dialog browses it first. */
export interface RemoteHost {
  environment: SshEnvironment;
  /** The host as the user named it (an alias stays an alias). */
  host: string;
  username: string;
  port: number;
  notes: string[];
}

/** Connect to `[user@]host[:port]` (or an alias) as `~/.ssh/config` describes it, its key checked against known_hosts. */
export async function connectRemoteHost(spec: { host: string; user?: string; port?: number }, options: OpenRemoteOptions): Promise<RemoteHost> {
  const notes: string[] = [];
  const target = await targetFor(spec, options, notes);
  if (!target.agent && !target.identities?.length) {
    throw new EnvironmentError(
      'EACCES',
      `No way to log in to ${target.username}@${target.host}: no SSH agent (SSH_AUTH_SOCK) and no readable key without a passphrase (${notes.length ? notes.join(' ') : 'none of ~/.ssh/id_ed25519, id_ecdsa, id_rsa exists, and ~/.ssh/config names no IdentityFile'}).`,
    );
  }
  const environment = await SshEnvironment.connect(options.signal ? { ...target, signal: options.signal } : target, undefined, options.reconnect);
  return { environment, host: spec.host, username: target.username, port: target.port, notes };
}

/**
 * The folder `path` of a connected host, resolved to its real path there and checked to be a folder: an environment
 * of its own working there (sharing the host's connection) and the key it is kept under.
 */
export async function enterRemoteFolder(remote: RemoteHost, path: string): Promise<RemoteFolder> {
  const { environment } = remote;
  const where = `${environment.label}:${path}`;
  const missing = (error: unknown) => {
    throw isMissing(error) ? new EnvironmentError('ENOENT', `There is no folder ${path} on ${environment.label}.`) : error;
  };
  // OpenSSH's SFTP realpath answers for a missing last component too: the stat says whether it is there.
  const real = await environment.realpath(path).catch(missing);
  const info = await environment.stat(real).catch(missing);
  if (!info.isDirectory()) throw new EnvironmentError('ENOTDIR', `${where} is not a folder.`);
  return {
    environment: environment.enter(real),
    workspace: real,
    id: remoteFolderId({ user: remote.username, host: remote.host, port: remote.port, path: real }),
    notes: remote.notes,
  };
}

/**
 * Open `[user@]host[:port]:/path` (or `ssh://…`): the host as `~/.ssh/config` describes it (an alias, its jump hosts
 * and keys), its key checked against known_hosts, the folder resolved to its real path there and checked to be one.
 */
export async function openRemoteFolder(spec: string | RemoteSpec, options: OpenRemoteOptions): Promise<RemoteFolder> {
  const parsed = typeof spec === 'string' ? parseRemoteSpec(spec) : spec;
  const remote = await connectRemoteHost(parsed, options);
  try {
    return await enterRemoteFolder(remote, parsed.path);
  } catch (error) {
    await remote.environment.close();
    throw error;
  }
}
