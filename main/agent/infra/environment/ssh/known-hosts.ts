import { createHash, createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** What known_hosts says about a host's key: listed (this key), changed (another key of that type), or unknown. */
export type HostKeyVerdict = { status: 'known' } | { status: 'changed'; file: string; line: number } | { status: 'unknown' };

/** The SHA256 fingerprint of a key, as OpenSSH prints it. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The key's type from its wire form (a length-prefixed name first). */
function keyType(key: Buffer): string {
  return key.subarray(4, 4 + key.readUInt32BE(0)).toString('latin1');
}

/** The name known_hosts uses for a host: `host`, or `[host]:port` off port 22. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function matches(pattern: string, name: string): boolean {
  if (pattern.startsWith('|1|')) {
    const [, , salt, hash] = pattern.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  return pattern.split(',').some((p) => p === name);
}

/**
 * Check a server's host key against known_hosts files (OpenSSH's format, hashed names included). Never accepts a
 * key the files do not list: an unknown host is `unknown` (the caller asks the user or refuses), another key of the
 * same type for that host is `changed` (always refused).
 */
export async function checkHostKey(files: readonly string[], host: string, port: number, key: Buffer): Promise<HostKeyVerdict> {
  const name = knownHostsName(host, port);
  const type = keyType(key);
  const wanted = key.toString('base64');
  let changed: HostKeyVerdict | null = null;
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const fields = lines[i]!.trim().split(/\s+/);
      if (!fields[0] || fields[0].startsWith('#')) continue;
      const marker = fields[0].startsWith('@') ? fields.shift()! : null;
      const [hosts, lineType, data] = fields;
      if (!hosts || !lineType || !data || !matches(hosts, name)) continue;
      if (marker === '@revoked' && data === wanted) return { status: 'changed', file, line: i + 1 };
      if (marker) continue;
      if (data === wanted) return { status: 'known' };
      if (lineType === type) changed ??= { status: 'changed', file, line: i + 1 };
    }
  }
  return changed ?? { status: 'unknown' };
}

/** The line to add to known_hosts to accept this key. */
export function knownHostsLine(host: string, port: number, key: Buffer): string {
  return `${knownHostsName(host, port)} ${keyType(key)} ${key.toString('base64')}`;
}
