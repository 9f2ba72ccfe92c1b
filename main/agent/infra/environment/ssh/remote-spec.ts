/** A remote folder as the user names it: `[user@]host[:port]:/abs/path` or `ssh://[user@]host[:port]/abs/path`. */
export interface RemoteSpec {
  /** A `~/.ssh/config` alias, a host name or an address. */
  host: string;
  user?: string;
  port?: number;
  /** Absolute, on the remote machine. */
  path: string;
}

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9._-]*)$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

function portOf(text: string | undefined, spec: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) throw new Error(`"${spec}": ${text} is not a port (1-65535).`);
  return port;
}

function checked(spec: string, parts: { user?: string | undefined; host: string; port?: number | undefined; path: string }): RemoteSpec {
  if (!HOST.test(parts.host)) throw new Error(`"${spec}": "${parts.host}" is not a host name, address or ~/.ssh/config alias.`);
  if (parts.user !== undefined && !USER.test(parts.user)) throw new Error(`"${spec}": "${parts.user}" is not a user name.`);
  if (!parts.path.startsWith('/')) throw new Error(`"${spec}": the folder must be an absolute path on that machine (e.g. host:/home/me/project).`);
  if (parts.path.includes('\0')) throw new Error(`"${spec}": the path holds a NUL character.`);
  const host = parts.host.startsWith('[') ? parts.host.slice(1, -1) : parts.host;
  return { host, path: parts.path, ...(parts.user ? { user: parts.user } : {}), ...(parts.port ? { port: parts.port } : {}) };
}

/** Parse a remote folder argument, or throw an error saying what is wrong with it. */
export function parseRemoteSpec(spec: string): RemoteSpec {
  const text = spec.trim();
  if (/^ssh:\/\//i.test(text)) {
    const m = /^ssh:\/\/(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d*))?(\/.*)?$/i.exec(text);
    if (!m) throw new Error(`"${spec}" is not an ssh:// address: ssh://[user@]host[:port]/absolute/path`);
    let path: string;
    try {
      path = decodeURIComponent(m[4] ?? '');
    } catch {
      throw new Error(`"${spec}": the path is not valid percent-encoding.`);
    }
    return checked(spec, { user: m[1] && decodeURIComponent(m[1]), host: m[2]!, port: portOf(m[3], spec), path });
  }
  const m = /^(?:([^@/:]+)@)?(\[[^\]]+\]|[^:/@\s]+)(?::(\d+))?:(.*)$/.exec(text);
  if (!m) throw new Error(`"${spec}" does not name a remote folder: [user@]host[:port]:/absolute/path or ssh://[user@]host[:port]/absolute/path`);
  return checked(spec, { user: m[1], host: m[2]!, port: portOf(m[3], spec), path: m[4]! });
}

/** The key a remote folder's sessions and trust are kept under on this machine: `ssh://user@host:port/path`. */
export function remoteFolderId(parts: { user: string; host: string; port: number; path: string }): string {
  const host = parts.host.includes(':') ? `[${parts.host}]` : parts.host;
  return `ssh://${encodeURIComponent(parts.user)}@${host}:${parts.port}${encodeURI(parts.path)}`;
}

/** Whether a workspace key names a remote folder. */
export function isRemoteFolderId(workspace: string): boolean {
  return workspace.startsWith('ssh://');
}

/**
 * The key of another folder `path` on the same machine as the remote folder `id` (the same user, host as named, and
 * port): a worktree Deft made there, or the repository's main checkout.
 */
export function remoteFolderIdAt(id: string, path: string): string {
  const spec = parseRemoteSpec(id);
  if (!spec.user || !spec.port) throw new Error(`"${id}" is not a remote folder's key.`);
  return remoteFolderId({ user: spec.user, host: spec.host, port: spec.port, path });
}
