import { blockedAddressReason, isIpLiteral } from '#infra/net/address-policy';

/** A URL the fetcher may try: parsed, checked for scheme and credentials, with what rules and allowances match. */
export interface Target {
  url: URL;
  /** Lower-case host name without brackets or a trailing dot (an IPv6 literal bare), as DNS and allowances see it. */
  hostname: string;
  port: number;
  /** `host[:port]` as the user writes it in allowPrivateHosts (port only when not the scheme's default). */
  authority: string;
  /** The URL rules match: lower-case scheme and host, no default port, percent-escapes decoded once, no fragment. */
  normalised: string;
  /** `scheme://host[:port]`, for the host-wide rule an approval stores. */
  origin: string;
}

/** A request Deft will not make; the message says why and what to do. */
export class FetchRefusal extends Error {
  override name = 'FetchRefusal';
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** Decode each run of %XX escapes once (runs that are not valid UTF-8 stay as written). */
export function decodeOnce(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * Parse what the model asked for. The WHATWG parser already turns every IPv4 spelling (`0x7f000001`,
 * `127.1`, `2130706433`, octal parts) into dotted form and lower-cases the host, so the checks that
 * follow see one spelling; IPv6 zone ids are not valid in URLs and fail to parse.
 */
export function parseTarget(input: string, base?: URL): Target {
  let url: URL;
  try {
    url = base ? new URL(input, base) : new URL(input.trim());
  } catch {
    throw new FetchRefusal(`"${input.slice(0, 300)}" is not a valid absolute URL. Give a full http:// or https:// URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusal(`Only http:// and https:// URLs can be fetched, not ${url.protocol}//. To read a local file, use Read.`);
  }
  if (url.username || url.password) {
    throw new FetchRefusal(
      'URLs with credentials (user:password@host) are refused: Deft does not send passwords embedded in URLs. Fetch the URL without them.',
    );
  }
  url.hash = '';
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  const hostname = isIpLiteral(bare) ? bare : bare.replace(/\.+$/, '');
  if (!hostname) throw new FetchRefusal(`"${input.slice(0, 300)}" has no host name.`);
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol]!;
  const shownHost = hostname.includes(':') ? `[${hostname}]` : hostname;
  const authority = url.port ? `${shownHost}:${url.port}` : shownHost;
  const origin = `${url.protocol}//${authority}`;
  const normalised = `${origin}${decodeOnce(url.pathname)}${url.search ? decodeOnce(url.search) : ''}`;
  return { url, hostname, port, authority, normalised, origin };
}

/** Names that always mean this machine (RFC 6761), refused before any lookup. */
function isLocalName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === 'localhost.localdomain';
}

/**
 * Whether the user allowed private addresses for this target: an entry is `host` (any port), `host:port`,
 * or `*.domain` (any subdomain, any port). Entries are compared in the target's own spelling (a parsed URL),
 * so `127.0.0.1:8080` also covers `http://0x7f000001:8080/`.
 */
export function privateAllowed(target: Target, entries: readonly string[]): boolean {
  const shownHost = target.hostname.includes(':') ? `[${target.hostname}]` : target.hostname;
  for (const raw of entries) {
    const entry = normaliseHostEntry(raw);
    if (!entry) continue;
    if (entry.wildcard) {
      if (target.hostname.endsWith(`.${entry.host}`)) return true;
      continue;
    }
    if (entry.host !== shownHost) continue;
    if (entry.port === undefined || entry.port === target.port) return true;
  }
  return false;
}

/** An allowPrivateHosts entry in canonical form, or null when it is not a host[:port]. */
export function normaliseHostEntry(raw: string): { host: string; port?: number; wildcard: boolean } | null {
  const text = raw.trim().toLowerCase();
  const wildcard = text.startsWith('*.');
  try {
    const url = new URL(`http://${wildcard ? text.slice(2) : text}`);
    if (url.pathname !== '/' || url.search || url.username || url.password) return null;
    const host = url.hostname.replace(/\.+$/, '');
    if (!host) return null;
    return url.port ? { host, port: Number(url.port), wildcard } : { host, wildcard };
  } catch {
    return null;
  }
}

/**
 * Checks on the target itself, before any lookup: an IP literal must be public and `localhost` names are
 * refused, unless the user allowed the host. Names are checked again on the addresses DNS gives.
 */
export function checkTargetHost(target: Target, allowed: boolean): void {
  if (allowed) return;
  if (isIpLiteral(target.hostname)) {
    const reason = blockedAddressReason(target.hostname);
    if (reason) throw privateRefusal(target, `${target.hostname} is ${reason}`);
  } else if (isLocalName(target.hostname)) {
    throw privateRefusal(target, `${target.hostname} is this machine`);
  }
}

export function privateRefusal(target: Target, why: string): FetchRefusal {
  return new FetchRefusal(
    `Refused to fetch ${target.origin}: ${why}. FetchURL does not reach this machine or private networks unless the user allows the host. ` +
      `If the user wants this, they can add "${target.authority}" to Settings → Web → Allowed private hosts (or "web": {"allowPrivateHosts": ["${target.authority}"]} in ~/.deft/settings.json).`,
  );
}
