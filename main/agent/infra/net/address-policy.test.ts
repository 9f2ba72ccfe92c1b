import { describe, expect, it } from 'vitest';
import { addressClass, blockedAddressReason } from './address-policy';

describe('blockedAddressReason', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['::ffff:127.0.0.1', 'machine), written as IPv6'],
    ['::ffff:169.254.169.254', 'answer), written as IPv6'],
    ['64:ff9b::a00:1', 'private network address, written as IPv6'],
    ['2002:7f00:1::', 'machine), written as IPv6'],
    ['2001:db8::1', 'reserved'],
  ])('refuses %s (%s)', (address, words) => {
    expect(blockedAddressReason(address)).toContain(words);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700::6810:84e5', '::ffff:8.8.8.8', '64:ff9b::808:808'])('allows the public address %s', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });
});

describe('addressClass', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['192.168.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'other'],
    ['::', 'other'],
    ['224.0.0.1', 'other'],
    ['not an address', 'other'],
  ])('%s is %s', (address, kind) => expect(addressClass(address)).toBe(kind));
});
