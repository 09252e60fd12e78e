import {
  AddressPolicy,
  ForbiddenAddressReason,
  isForbiddenAddress,
  isHostnameAllowListed,
  parseAllowList,
} from './ip-policy';

const STRICT: AddressPolicy = { allowPrivate: false, allowList: [] };
const PRIVATE_OK: AddressPolicy = { allowPrivate: true, allowList: [] };

/**
 * Every refused range, with the reason it is refused under the strict (production) policy and
 * whether `allowPrivate` opens it.
 */
const REFUSED: Array<[address: string, reason: ForbiddenAddressReason, openedByAllowPrivate: boolean]> = [
  // IPv4 loopback 127/8
  ['127.0.0.1', 'loopback', true],
  ['127.1.2.3', 'loopback', true],
  ['127.255.255.254', 'loopback', true],
  // RFC 1918
  ['10.0.0.1', 'private', true],
  ['10.255.255.255', 'private', true],
  ['172.16.0.1', 'private', true],
  ['172.31.255.255', 'private', true],
  ['192.168.0.1', 'private', true],
  ['192.168.255.255', 'private', true],
  // link-local 169.254/16, and the metadata endpoints inside it
  ['169.254.0.1', 'link_local', true],
  ['169.254.255.255', 'link_local', true],
  ['169.254.169.254', 'cloud_metadata', false],
  ['169.254.170.2', 'cloud_metadata', false],
  // CGNAT 100.64/10
  ['100.64.0.1', 'carrier_grade_nat', true],
  ['100.127.255.255', 'carrier_grade_nat', true],
  ['100.100.100.200', 'cloud_metadata', false],
  // 0/8
  ['0.0.0.0', 'unspecified', false],
  ['0.1.2.3', 'unspecified', false],
  // multicast 224/4, broadcast
  ['224.0.0.1', 'multicast', false],
  ['239.255.255.255', 'multicast', false],
  ['255.255.255.255', 'broadcast', false],
  // reserved 240/4 and the other special-purpose blocks
  ['240.0.0.1', 'reserved', false],
  ['254.255.255.255', 'reserved', false],
  ['192.0.0.8', 'reserved', false],
  ['192.0.2.1', 'reserved', false],
  ['198.18.0.1', 'reserved', false],
  ['198.51.100.7', 'reserved', false],
  ['203.0.113.9', 'reserved', false],
  // IPv6 loopback, unspecified
  ['::1', 'loopback', true],
  ['0:0:0:0:0:0:0:1', 'loopback', true],
  ['::', 'unspecified', false],
  // link-local fe80::/10 (with and without a zone id), ULA fc00::/7, site-local fec0::/10
  ['fe80::1', 'link_local', true],
  ['febf:ffff::1', 'link_local', true],
  ['fe80::1%eth0', 'link_local', true],
  ['fc00::1', 'unique_local', true],
  ['fd12:3456:789a::1', 'unique_local', true],
  ['fd00:ec2::254', 'cloud_metadata', false],
  ['fec0::1', 'site_local', true],
  // multicast ff00::/8
  ['ff02::1', 'multicast', false],
  ['ff0e::101', 'multicast', false],
  // IPv4-mapped ::ffff:0:0/96, in dotted and hex notation, any case
  ['::ffff:127.0.0.1', 'loopback', true],
  ['::ffff:7f00:1', 'loopback', true],
  ['::FFFF:7F00:0001', 'loopback', true],
  ['0:0:0:0:0:ffff:7f00:1', 'loopback', true],
  ['::ffff:10.0.0.1', 'private', true],
  ['::ffff:c0a8:101', 'private', true],
  ['::ffff:169.254.169.254', 'cloud_metadata', false],
  ['::ffff:a9fe:a9fe', 'cloud_metadata', false],
  ['::ffff:0.0.0.0', 'unspecified', false],
  // IPv4-translated ::ffff:0:0:0/96
  ['::ffff:0:127.0.0.1', 'loopback', true],
  ['::ffff:0:a00:1', 'private', true],
  // NAT64 64:ff9b::/96 (RFC 6052), and the local-use 64:ff9b:1::/48 (RFC 8215)
  ['64:ff9b::127.0.0.1', 'loopback', true],
  ['64:ff9b::7f00:1', 'loopback', true],
  ['64:ff9b::a00:1', 'private', true],
  ['64:ff9b::a9fe:a9fe', 'cloud_metadata', false],
  ['64:ff9b:1::a00:1', 'local_nat64', true],
  // 6to4 2002::/16: 2002:AABB:CCDD:: embeds AA.BB.CC.DD
  ['2002:7f00:1::1', 'loopback', true],
  ['2002:c0a8:101::', 'private', true],
  ['2002:a9fe:a9fe::', 'cloud_metadata', false],
  // Teredo 2001::/32: server IPv4 in bits 32-63, client IPv4 XOR 0xffffffff in the last 32 bits
  ['2001:0:4136:e378:8000:63bf:3f57:fefe', 'private', true], // client 192.168.1.1
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', true], // client 127.0.0.1
  ['2001:0:a00:1:8000:63bf:7fff:fffe', 'private', true], // server 10.0.0.1
  // deprecated IPv4-compatible ::/96, documentation, discard, and anything outside 2000::/3
  ['::127.0.0.1', 'reserved', false],
  ['::7f00:1', 'reserved', false],
  ['::8.8.8.8', 'reserved', false],
  ['2001:db8::1', 'reserved', false],
  ['100::1', 'reserved', false],
  ['3fff::1', 'reserved', false],
  ['5f00::1', 'reserved', false],
  ['4000::1', 'reserved', false],
  ['e000::1', 'reserved', false],
  // not a plain IP address: refused, never guessed at
  ['127.1', 'invalid', false],
  ['0x7f.0.0.1', 'invalid', false],
  ['2130706433', 'invalid', false],
  ['0177.0.0.1', 'invalid', false],
  ['[::1]', 'invalid', false],
  ['localhost', 'invalid', false],
  ['', 'invalid', false],
  [' 8.8.8.8', 'invalid', false],
  ['8.8.8.8/32', 'invalid', false],
];

const PUBLIC: string[] = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '11.0.0.1',
  '100.63.255.255', // just below CGNAT
  '100.128.0.0', // just above CGNAT
  '126.255.255.255',
  '128.0.0.1',
  '169.253.255.255',
  '169.255.0.1',
  '172.15.255.255', // just below 172.16/12
  '172.32.0.0', // just above 172.16/12
  '192.167.255.255',
  '192.169.0.0',
  '223.255.255.255', // just below multicast
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // IPv4-mapped public address
  '::ffff:808:808',
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
  '2001:0:4136:e378:8000:63bf:7fff:fffe', // Teredo, public server and client (128.0.0.1)
];

describe('isForbiddenAddress', () => {
  describe.each(REFUSED)('%s', (address, reason, openedByAllowPrivate) => {
    it(`is refused as ${reason}`, () => {
      expect(isForbiddenAddress(address, STRICT)).toBe(reason);
    });

    it(openedByAllowPrivate ? 'is accepted with allowPrivate' : 'stays refused with allowPrivate', () => {
      expect(isForbiddenAddress(address, PRIVATE_OK)).toBe(openedByAllowPrivate ? false : reason);
    });
  });

  it.each(PUBLIC)('accepts the public address %s', (address) => {
    expect(isForbiddenAddress(address, STRICT)).toBe(false);
    expect(isForbiddenAddress(address, PRIVATE_OK)).toBe(false);
  });

  describe('allow-list', () => {
    it.each([
      ['127.0.0.1/32', '127.0.0.1', false],
      ['127.0.0.1/32', '::ffff:127.0.0.1', false], // the same IPv4 destination
      ['127.0.0.1/32', '127.0.0.2', 'loopback'],
      ['127.0.0.1', '127.0.0.1', false], // a bare address is a /32
      ['10.0.0.0/8', '10.20.30.40', false],
      ['10.0.0.0/8', '11.0.0.1', false], // public anyway
      ['10.0.0.0/8', '172.16.0.1', 'private'],
      ['fd00::/8', 'fd12::1', false],
      ['fd00::/8', 'fc00::1', 'unique_local'],
      ['::1', '::1', false],
      ['169.254.169.254/32', '169.254.169.254', false], // explicit listing is the only way in
      ['hooks.internal.example', '10.0.0.1', 'private'], // hostname entries do not list addresses
    ])('%s: %s -> %p', (entry, address, expected) => {
      expect(isForbiddenAddress(address, { allowPrivate: false, allowList: [entry] })).toBe(expected);
    });

    it('throws on an invalid entry', () => {
      expect(() => isForbiddenAddress('8.8.8.8', { allowPrivate: false, allowList: ['10.0.0.0/33'] })).toThrow(/allow-list/);
    });
  });
});

describe('parseAllowList', () => {
  it.each(['10.0.0.0/33', '10.0.0.0/', '/8', '10.0.0/8', 'fd00::/129', 'http://example.com', 'two words', '*.', '*', 'a..b'])(
    'refuses %p',
    (entry) => {
      expect(() => parseAllowList([entry])).toThrow(/Invalid webhook allow-list entry/);
    },
  );

  it('classifies CIDRs, addresses, hostnames and wildcards', () => {
    const parsed = parseAllowList(['10.0.0.0/8', ' 127.0.0.1 ', '::1', 'Hooks.Example.COM.', '*.internal.example']);
    expect(parsed.cidrs.map(([address, bits]) => `${address.toString()}/${bits}`)).toEqual([
      '10.0.0.0/8',
      '127.0.0.1/32',
      '::1/128',
    ]);
    expect([...parsed.hostnames]).toEqual(['hooks.example.com']);
    expect(parsed.suffixes).toEqual(['.internal.example']);
  });
});

describe('isHostnameAllowListed', () => {
  const list = parseAllowList(['hooks.example.com', '*.internal.example']);
  it.each([
    ['hooks.example.com', true],
    ['HOOKS.example.com.', true],
    ['a.hooks.example.com', false],
    ['example.com', false],
    ['a.internal.example', true],
    ['a.b.internal.example', true],
    ['internal.example', false], // the wildcard covers subdomains only
    ['evilinternal.example', false],
  ])('%s -> %p', (hostname, expected) => {
    expect(isHostnameAllowListed(hostname, list)).toBe(expected);
  });
});
