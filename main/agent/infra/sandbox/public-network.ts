import type ipaddr from 'ipaddr.js';
import { ipaddrPackage } from '../platform/on-demand';
import type { NetworkPolicy } from '#contract/sandbox';

let globalUnicastV6: [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined;

/** Whether a host names this machine or a local network rather than the internet (judged by its name or address). */
export function isLocalHost(host: string): boolean {
  const name = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local') || name.endsWith('.internal')) return true;
  const ip = ipaddrPackage();
  if (!ip.isValid(name)) return false;
  const address = ip.process(name);
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  return !(address.range() === 'unicast' && address.match((globalUnicastV6 ??= ip.parseCIDR('2000::/3'))));
}

/**
 * The network policy of a server that is a network client by nature (a sandboxed MCP server, approved as
 * such): any host on the internet, through the proxy; nothing on this machine or the local network
 * (loopback services, the cloud metadata address) unless `sandbox.network.allowedDomains` names it.
 */
export const internetOnly: NetworkPolicy = async ({ host, port }) =>
  isLocalHost(host)
    ? {
        allowed: false,
        reason: `${host}:${port} is on this machine or the local network; a sandboxed server reaches it only when "sandbox.network.allowedDomains" names it.`,
      }
    : { allowed: true };
