import type { LookupAddress } from 'node:dns';
import type { Agent } from 'undici';
import { blockedAddressReason } from '#infra/net/address-policy';
import { type Target, privateRefusal } from './target';
import { loadUndici } from './undici';

/** Turns a host name into addresses. The system resolver by default; tests pass their own. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

// node:dns/promises is loaded with the first lookup: a turn that fetches nothing never needs it.
export const systemResolver: Resolver = async (hostname) => (await import('node:dns/promises')).lookup(hostname, { all: true, verbatim: true });

export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Limits on one connection; the whole fetch has its own total deadline on top. */
const CONNECT_TIMEOUT_MS = 10_000;
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * A dispatcher for one request to `target`: the socket connects to an address the resolver gave *and
 * that was checked* — net.connect takes the addresses from this lookup, so there is no second lookup a
 * rebinding DNS server could answer differently. When private addresses are not allowed for the target,
 * any private answer refuses the whole name (a mixed answer is an attack, not a fallback).
 */
export async function pinnedAgent(target: Target, options: { resolver: Resolver; allowPrivate: boolean }): Promise<Agent> {
  const { Agent } = await loadUndici();
  return new Agent({
    connect: { lookup: checkedLookup(target, options) as never, timeout: CONNECT_TIMEOUT_MS },
    maxHeaderSize: MAX_HEADER_BYTES,
    connections: 1,
    pipelining: 1,
  });
}

/** The lookup net.connect uses for `target`: the resolver's answer, refused when private (unless allowed). */
export function checkedLookup(target: Target, options: { resolver: Resolver; allowPrivate: boolean }) {
  return (hostname: string, lookupOptions: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    const name = hostname.replace(/\.+$/, '').toLowerCase();
    options
      .resolver(name)
      .then((answers) => {
        const addresses = lookupOptions.family === 4 || lookupOptions.family === 6 ? answers.filter((a) => a.family === lookupOptions.family) : answers;
        if (!addresses.length) throw Object.assign(new Error(`DNS has no address for ${name}`), { code: 'ENOTFOUND', hostname: name });
        if (!options.allowPrivate) {
          for (const { address } of addresses) {
            const reason = blockedAddressReason(address);
            if (reason) throw privateRefusal(target, `${name} resolves to ${address}, ${reason}`);
          }
        }
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}
