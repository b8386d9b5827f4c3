import { describe, expect, it } from 'vitest';
import { classifyAddress } from './egress-address.js';
import { isLocalUrl } from './egress-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv6 forms that carry an IPv4 address are judged by it.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:a9fe:a9fe]', 'link-local'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['2002:c0a8:0101::1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
  ])('%s is %s', (address, range) => {
    expect(classifyAddress(address)).toBe(range);
  });

  it('does not take names or non-canonical spellings for addresses', () => {
    for (const text of ['localhost', '0x7f.0.0.1', '127.1', '2130706433', '', '1.2.3.4.5'])
      expect(classifyAddress(text)).toBeUndefined();
  });
});

describe('isLocalUrl', () => {
  it.each([
    ['http://localhost:3000/mcp', true],
    ['http://api.localhost/mcp', true],
    ['http://127.0.0.1:8080/mcp', true],
    ['http://[::1]/mcp', true],
    ['http://10.1.2.3/mcp', true],
    ['http://0x7f.1/mcp', true],
    ['https://mcp.example.com/mcp', false],
    ['http://169.254.169.254/', false],
    ['not a url', false],
  ])('%s: %s', (url, local) => {
    expect(isLocalUrl(url)).toBe(local);
  });
});
