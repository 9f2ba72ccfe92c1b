import type ipaddr from 'ipaddr.js';
import { ipaddrPackage } from '../platform/on-demand';

/** Why an address is not on the public internet, in words, by ipaddr.js range name. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address (where cloud metadata services answer)',
  loopback: 'a loopback address (this machine)',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private network address',
  uniqueLocal: 'a unique-local (private) IPv6 address',
  deprecatedSiteLocal: 'a site-local (private) IPv6 address',
  reserved: 'a reserved address',
};

let globalUnicastV6: [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined;
/** 2000::/3, parsed once ipaddr.js is loaded. */
const GLOBAL_UNICAST_V6 = () => (globalUnicastV6 ??= ipaddrPackage().parseCIDR('2000::/3'));

function describe(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/** The IPv4 address an IPv6 form carries (mapped, NAT64, 6to4), if any. */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  // 64:ff9b::/96 (RFC 6052 NAT64): the last 32 bits. 6to4 (2002:AABB:CCDD::/48): bits 16–47.
  if (range === 'rfc6052' && address.parts[2] === 0) return new (ipaddrPackage().IPv4)(bytes.slice(12, 16));
  if (range === '6to4') return new (ipaddrPackage().IPv4)(bytes.slice(2, 6));
  return null;
}

/** The address whose range decides (an IPv6 form that carries an IPv4 address is judged by that one), with its range name. */
function effective(text: string): { address: ipaddr.IPv4 | ipaddr.IPv6; range: string; carried: boolean } | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddrPackage().parse(text.replace(/^\[|\]$/g, ''));
  } catch {
    return null;
  }
  if (address.kind() === 'ipv4') return { address, range: address.range(), carried: false };
  const v6 = address as ipaddr.IPv6;
  if (v6.zoneId) return { address: v6, range: 'zoned', carried: false };
  const range = v6.range();
  const inner = embeddedV4(v6, range);
  if (inner) return { address: inner, range: inner.range(), carried: true };
  // Outside global unicast (2000::/3), an IPv6 "unicast" address is not a public one.
  return { address: v6, range: range === 'unicast' && !v6.match(GLOBAL_UNICAST_V6()) ? 'reserved' : range, carried: false };
}

/**
 * Why a resolved address must not be fetched without the user's say-so, or null for a public address.
 * Everything that is not plain public unicast is refused: loopback, private, link-local, unique-local,
 * CGNAT, unspecified, multicast, reserved; IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4)
 * are judged by that address; any other IPv6 outside global unicast (2000::/3) is refused.
 */
export function blockedAddressReason(text: string): string | null {
  const found = effective(text);
  if (!found) return 'not an IP address';
  if (found.range === 'unicast') return null;
  if (found.range === 'zoned') return 'an IPv6 address with a zone (a local interface)';
  return found.carried ? `${describe(found.range)}, written as IPv6 (${text})` : describe(found.range);
}

/** The classes of non-public address a user may allow by name (everything else not public is never allowed). */
export const ADDRESS_CLASSES = ['loopback', 'private', 'link-local'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** Which class an address is in: public, one a user may allow, or `other` (unspecified, multicast, reserved…). */
export function addressClass(text: string): 'public' | AddressClass | 'other' {
  const found = effective(text);
  if (!found) return 'other';
  switch (found.range) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
    case 'deprecatedSiteLocal':
    case 'carrierGradeNat':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    default:
      return 'other';
  }
}

/** Whether `text` is an IP address literal (v4 or v6, brackets allowed). */
export function isIpLiteral(text: string): boolean {
  return ipaddrPackage().isValid(text.replace(/^\[|\]$/g, ''));
}
