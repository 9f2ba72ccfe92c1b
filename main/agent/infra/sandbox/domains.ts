import { isIP } from 'node:net';

/**
 * An allowed-domain entry: `example.com` (that host), `*.example.com` (its subdomains, not itself),
 * an IP address (`127.0.0.1`, `[::1]`), `localhost`; any of them with `:port` to allow one port only.
 */
export interface DomainPattern {
  host: string;
  wildcard: boolean;
  port?: number;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function parseDomainPattern(text: string): { ok: true; pattern: DomainPattern } | { ok: false; message: string } {
  let rest = text.trim().toLowerCase();
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (bracketed) {
    if (isIP(bracketed[1]!) !== 6) return { ok: false, message: 'the address in brackets is not an IPv6 address' };
    rest = bracketed[1]!;
    if (bracketed[2]) port = Number(bracketed[2]);
  } else {
    const withPort = /^(.+):(\d+)$/.exec(rest);
    if (withPort && !withPort[1]!.includes(':')) {
      rest = withPort[1]!;
      port = Number(withPort[2]);
    } else if (rest.includes(':')) {
      return { ok: false, message: 'write an IPv6 address in brackets, e.g. [::1]:8080' };
    }
  }
  if (port !== undefined && (port < 1 || port > 65_535)) return { ok: false, message: 'the port must be between 1 and 65535' };
  const wildcard = rest.startsWith('*.');
  const host = wildcard ? rest.slice(2) : rest;
  if (!isIP(host) && !host.split('.').every((label) => LABEL.test(label))) {
    return { ok: false, message: 'write a host name such as example.com or *.example.com, an IP address, or one of these with :port' };
  }
  return { ok: true, pattern: { host, wildcard, ...(port !== undefined ? { port } : {}) } };
}

/** The host as patterns compare it: lower case, no brackets, no trailing dot. */
export function normalHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** Whether an allowed-domain entry covers a connection. */
export function domainAllows(entry: string, host: string, port: number): boolean {
  const parsed = parseDomainPattern(entry);
  if (!parsed.ok) return false;
  const { pattern } = parsed;
  if (pattern.port !== undefined && pattern.port !== port) return false;
  const name = normalHost(host);
  return pattern.wildcard ? name.endsWith(`.${pattern.host}`) : name === pattern.host;
}

/** The entry "always allow" stores for a connection: a domain name whole; an address or localhost with its port only. */
export function domainEntryFor(host: string, port: number): string {
  const name = normalHost(host);
  if (!isIP(name) && name !== 'localhost') return name;
  return `${isIP(name) === 6 ? `[${name}]` : name}:${port}`;
}
