import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import SSHConfig, { type Line, LineType } from 'ssh-config';

/** What `~/.ssh/config` says about one host (OpenSSH's defaults where it says nothing). */
export interface HostSettings {
  /** The name it was asked for (an alias, or the host itself). */
  alias: string;
  hostName: string;
  port: number;
  /** Absent: the caller's default (this machine's user name). */
  user?: string;
  /** Absolute paths, in order. */
  identityFiles: string[];
  /** Whether the config named identity files (else they are OpenSSH's default key files). */
  identitiesConfigured: boolean;
  identitiesOnly: boolean;
  /** The agent socket: `SSH_AUTH_SOCK` unless IdentityAgent says otherwise; null for none. */
  identityAgent: string | null;
  knownHostsFiles: string[];
  /** The jump hosts in order, each `[user@]host[:port]` (a config alias or a host); empty for none. */
  proxyJump: string[];
}

export interface HostConfigOptions {
  /** The user's home folder on this machine (where `~` and `.ssh/` are). */
  userHome: string;
  /** This machine's user name (%u). */
  localUser: string;
  /** SSH_AUTH_SOCK. */
  agentSocket?: string;
  /** The config file (default `~/.ssh/config`); its absence is no error. */
  configFile?: string;
}

/** Refused: Deft never runs a command an ssh config names (ProxyCommand, Match exec, LocalCommand…). */
export class SshConfigRefusal extends Error {
  override name = 'SshConfigRefusal';
  readonly code = 'ESSHCONFIG';
}

const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519_sk', 'id_rsa'];

function walk(lines: readonly Line[], visit: (line: Line & { type: LineType.DIRECTIVE }) => void): void {
  for (const line of lines) {
    if (line.type !== LineType.DIRECTIVE) continue;
    visit(line);
    if ('config' in line) walk(line.config, visit);
  }
}

/**
 * The config without what would make the parser run something: CanonicalizeHostName makes it run `nslookup`, and
 * a `Match exec` makes it run a shell command — refused outright (what the config means would depend on a command
 * Deft will not run).
 */
function defused(config: SSHConfig, file: string): SSHConfig {
  walk(config, (line) => {
    if (/^match$/i.test(line.param) && 'criteria' in line) {
      const criteria = Object.keys((line as { criteria: Record<string, unknown> }).criteria).map((k) => k.toLowerCase());
      if (criteria.includes('exec')) {
        throw new SshConfigRefusal(
          `${file} has a "Match exec" block, which decides by running a command. Deft never runs commands from an ssh config; remove that block (or move it to a config Deft does not read) and use Host blocks instead.`,
        );
      }
    }
  });
  const strip = (lines: Line[]): void => {
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (line.type !== LineType.DIRECTIVE) continue;
      if (/^canonical/i.test(line.param)) lines.splice(i, 1);
      else if ('config' in line) strip(line.config);
    }
  };
  strip(config);
  return config;
}

function value(v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[0]) : undefined;
  return typeof v === 'string' ? v : undefined;
}
function values(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return typeof v === 'string' ? v.split(/\s+/).filter(Boolean) : [];
}

/** `~` and OpenSSH's %-tokens (%d home, %u local user, %h host, %r remote user, %p port, %n alias, %%). */
function expand(path: string, tokens: Record<string, string>, home: string): string {
  const withTokens = path.replace(/%(.)/g, (whole, t: string) => (t === '%' ? '%' : (tokens[t] ?? whole)));
  if (withTokens === '~') return home;
  if (withTokens.startsWith('~/')) return join(home, withTokens.slice(2));
  return withTokens.startsWith('/') ? withTokens : join(home, '.ssh', withTokens);
}

/**
 * What `~/.ssh/config` says about `alias`, with OpenSSH's precedence (the first value wins; the command line's user
 * and port win over the file's). Commands are never run: a ProxyCommand for this host or a `Match exec` anywhere is
 * refused with a clear error; LocalCommand, RemoteCommand, KnownHostsCommand and Include are not followed.
 */
export async function resolveHost(alias: string, given: { user?: string; port?: number }, options: HostConfigOptions): Promise<HostSettings> {
  const file = options.configFile ?? join(options.userHome, '.ssh', 'config');
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return '';
    throw new Error(`Could not read ${file}: ${error.message}`);
  });
  let parsed: SSHConfig;
  try {
    parsed = SSHConfig.parse(text);
  } catch (error) {
    throw new Error(`${file} could not be parsed: ${(error as Error).message}`, { cause: error });
  }
  const computed = defused(parsed, file).compute(
    { Host: alias, ...(given.user ? { User: given.user } : {}) },
    { matchExec: false, ignoreCase: true },
  ) as Record<string, unknown>;
  const proxyCommand = value(computed.proxycommand);
  if (proxyCommand && proxyCommand.toLowerCase() !== 'none') {
    throw new SshConfigRefusal(
      `${file} reaches ${alias} through "ProxyCommand ${proxyCommand}". Deft never runs commands from an ssh config; use ProxyJump for a jump host, or open the folder from a host Deft can reach directly.`,
    );
  }
  const hostName = (value(computed.hostname) ?? alias).replace(/%h/g, alias).replace(/%%/g, '%');
  const portText = value(computed.port);
  const port = given.port ?? (portText && /^\d+$/.test(portText) ? Number(portText) : 22);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`${file}: the port of ${alias} (${portText}) is not a port.`);
  const user = given.user ?? value(computed.user);
  const tokens = { d: options.userHome, u: options.localUser, h: hostName, r: user ?? options.localUser, p: String(port), n: alias };
  const identityFiles = values(computed.identityfile)
    .filter((f) => f.toLowerCase() !== 'none')
    .map((f) => expand(f, tokens, options.userHome));
  const agentSetting = value(computed.identityagent);
  const identityAgent =
    agentSetting === undefined || agentSetting === 'SSH_AUTH_SOCK'
      ? (options.agentSocket ?? null)
      : agentSetting.toLowerCase() === 'none'
        ? null
        : expand(agentSetting, tokens, options.userHome);
  const userKnown = values(computed.userknownhostsfile).filter((f) => f.toLowerCase() !== 'none');
  const globalKnown = values(computed.globalknownhostsfile).filter((f) => f.toLowerCase() !== 'none');
  const jumps = value(computed.proxyjump);
  return {
    alias,
    hostName,
    port,
    ...(user ? { user } : {}),
    identityFiles: identityFiles.length ? identityFiles : DEFAULT_KEYS.map((k) => join(options.userHome, '.ssh', k)),
    identitiesConfigured: identityFiles.length > 0,
    identitiesOnly: value(computed.identitiesonly)?.toLowerCase() === 'yes',
    identityAgent,
    knownHostsFiles: [
      ...(userKnown.length ? userKnown : ['~/.ssh/known_hosts', '~/.ssh/known_hosts2']).map((f) => expand(f, tokens, options.userHome)),
      ...(globalKnown.length ? globalKnown : ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2']),
    ],
    proxyJump:
      jumps && jumps.toLowerCase() !== 'none'
        ? jumps
            .split(',')
            .map((j) => j.trim())
            .filter(Boolean)
        : [],
  };
}

/**
 * The aliases `~/.ssh/config` names in its Host lines (no patterns, no negations), in file order, each with where it
 * leads (`user@hostname:port` as far as the file says). Nothing is resolved or run; an unreadable file lists none.
 */
export async function listHostAliases(options: HostConfigOptions, max = 200): Promise<Array<{ alias: string; detail: string }>> {
  const file = options.configFile ?? join(options.userHome, '.ssh', 'config');
  const text = await readFile(file, 'utf8').catch(() => '');
  let parsed: SSHConfig;
  try {
    parsed = SSHConfig.parse(text);
  } catch {
    return [];
  }
  const found: Array<{ alias: string; detail: string }> = [];
  const seen = new Set<string>();
  for (const line of parsed) {
    if (line.type !== LineType.DIRECTIVE || !/^host$/i.test(line.param) || !('config' in line)) continue;
    // Several names on one line come as [{val}, …].
    const names = Array.isArray(line.value) ? line.value.map((v: unknown) => String((v as { val?: unknown })?.val ?? v)) : values(line.value);
    for (const name of names) {
      if (seen.has(name) || found.length >= max || !/^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$/.test(name)) continue;
      seen.add(name);
      const settings: Record<string, string> = {};
      for (const inner of line.config) {
        if (inner.type === LineType.DIRECTIVE && typeof inner.value === 'string') settings[inner.param.toLowerCase()] ??= inner.value;
      }
      const target = settings.hostname ?? name;
      const detail = `${settings.user ? `${settings.user}@` : ''}${target}${settings.port ? `:${settings.port}` : ''}`;
      found.push({ alias: name, detail: detail.replace(/[^\x20-\x7e]/g, '?').slice(0, 300) });
    }
  }
  return found;
}
