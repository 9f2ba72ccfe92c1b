import ipaddr from 'ipaddr.js';

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

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function describe(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

function v4Reason(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : describe(range);
}

/** The IPv4 address an IPv6 form carries (mapped, NAT64, 6to4), if any. */
function embeddedV4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  if (range === 'ipv4Mapped') return address.toIPv4Address();
  // 64:ff9b::/96 (RFC 6052 NAT64): the last 32 bits. 6to4 (2002:AABB:CCDD::/48): bits 16–47.
  if (range === 'rfc6052' && address.parts[2] === 0) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

/**
 * Why a resolved address must not be fetched without the user's say-so, or null for a public address.
 * Everything that is not plain public unicast is refused: loopback, private, link-local, unique-local,
 * CGNAT, unspecified, multicast, reserved; IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4)
 * are judged by that address; any other IPv6 outside global unicast (2000::/3) is refused.
 */
export function blockedAddressReason(text: string): string | null {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(text.replace(/^\[|\]$/g, ''));
  } catch {
    return 'not an IP address';
  }
  if (address.kind() === 'ipv4') return v4Reason(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  if (v6.zoneId) return 'an IPv6 address with a zone (a local interface)';
  const range = v6.range();
  const inner = embeddedV4(v6, range);
  if (inner) {
    const reason = v4Reason(inner);
    return reason ? `${reason}, written as IPv6 (${text})` : null;
  }
  if (range === 'unicast' && v6.match(GLOBAL_UNICAST_V6)) return null;
  return describe(range);
}

/** Whether `text` is an IP address literal (v4 or v6, brackets allowed). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(text.replace(/^\[|\]$/g, ''));
}
