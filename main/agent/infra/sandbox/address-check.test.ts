import { describe, expect, it } from 'vitest';
import { addressCheck } from './address-check';

describe('addressCheck: where an allowed name may lead', () => {
  const none = addressCheck({ allowedDomains: [], allowAddressClasses: [] });
  it('a public address passes; a name leading to loopback, a private network or the metadata address is refused, saying how to allow it', () => {
    expect(none({ host: 'example.com', port: 443 }, '93.184.216.34')).toBeNull();
    for (const [address, kind] of [
      ['127.0.0.1', 'loopback'],
      ['10.0.0.7', 'private'],
      ['169.254.169.254', 'link-local'],
    ] as const) {
      const refusal = none({ host: 'example.com', port: 443 }, address);
      expect(refusal?.reason).toContain(`example.com resolves to ${address}`);
      expect(refusal?.hint).toContain(`"${kind}" to "sandbox.network.allowAddressClasses"`);
    }
    // 0.0.0.0 reaches this machine too, and no class allows it.
    expect(none({ host: 'example.com', port: 80 }, '0.0.0.0')?.hint).not.toContain('allowAddressClasses');
  });
  it('passes what the user allowed: an address written as the host, localhost to loopback, the address in allowedDomains, its class', () => {
    expect(none({ host: '127.0.0.1', port: 5432 }, '127.0.0.1')).toBeNull();
    expect(none({ host: 'localhost', port: 3000 }, '127.0.0.1')).toBeNull();
    expect(none({ host: 'localhost', port: 3000 }, '10.0.0.1')).not.toBeNull();
    expect(addressCheck({ allowedDomains: ['10.0.0.7:8080'], allowAddressClasses: [] })({ host: 'db.internal', port: 8080 }, '10.0.0.7')).toBeNull();
    expect(addressCheck({ allowedDomains: ['10.0.0.7:8080'], allowAddressClasses: [] })({ host: 'db.internal', port: 9090 }, '10.0.0.7')).not.toBeNull();
    expect(addressCheck({ allowedDomains: [], allowAddressClasses: ['private'] })({ host: 'db.internal', port: 80 }, '192.168.1.5')).toBeNull();
    expect(addressCheck({ allowedDomains: [], allowAddressClasses: ['private'] })({ host: 'db.internal', port: 80 }, '169.254.169.254')).not.toBeNull();
  });
});
