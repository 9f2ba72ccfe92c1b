import { isIP } from 'node:net';
import type { NetworkTarget } from '#contract/sandbox';
import { type AddressClass, addressClass, blockedAddressReason } from '../net/address-policy';
import { domainAllows, normalHost } from './domains';

/** Why the proxy must not connect to `address` for `target`, or null when it may. */
export type AddressCheck = (target: NetworkTarget, address: string) => { reason: string; hint: string } | null;

/**
 * Where an allowed name may lead. The proxy resolves a name once and connects to the address it checked,
 * so neither a name that points at this machine or a private network nor one rebound there between the
 * decision and the connection reaches it, unless the user allowed that: by writing the address itself (an
 * IP literal as the host, or in `allowedDomains`), by the name `localhost` (loopback only), or by allowing
 * its class (`sandbox.network.allowAddressClasses`: loopback, private, link-local).
 */
export function addressCheck(settings: { allowedDomains: readonly string[]; allowAddressClasses: readonly AddressClass[] }): AddressCheck {
  return (target, address) => {
    const kind = addressClass(address);
    if (kind === 'public') return null;
    const host = normalHost(target.host);
    if (isIP(host)) return null;
    if ((host === 'localhost' || host.endsWith('.localhost')) && kind === 'loopback') return null;
    if (settings.allowedDomains.some((entry) => domainAllows(entry, address, target.port))) return null;
    if (kind !== 'other' && settings.allowAddressClasses.includes(kind)) return null;
    const reason = `${target.host} resolves to ${address}, ${blockedAddressReason(address) ?? 'not a public address'}`;
    const widen = kind === 'other' ? '' : `, or "${kind}" to "sandbox.network.allowAddressClasses"`;
    return {
      reason,
      hint: `${reason}: Deft's proxy does not follow a name to this machine or a private network. If that is meant, add "${address}" to "sandbox.network.allowedDomains"${widen} in .deft/settings.local.json.`,
    };
  };
}
