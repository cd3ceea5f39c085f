//! Which addresses are public (lib/address-class.ts): every IPv4 and IPv6 range the target guard
//! refuses, with its reason, including each form of IPv6 that embeds an IPv4 address. The guard's
//! use of it (names, URLs, the allowlist): test/lib/target-guard.test.ts.
import test from 'ava';
import { classifyAddress, embeddedIPv4, type AddressReason, type EmbeddingForm } from '../../lib/address-class.js';
import { checkAddress } from '../../lib/target-allowlist.js';

// ---------------------------------------------------------------------------------------------
// IPv4 literals

const REFUSED_V4: Array<[string, AddressReason]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['169.254.1.1', 'link_local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
];
for (const [address, reason] of REFUSED_V4) {
  test(`IPv4 ${address} is refused as ${reason}`, (t) => {
    const cls = classifyAddress(address);
    t.false(cls.public);
    t.is(cls.public ? undefined : cls.reason, reason);
  });
}

const PUBLIC_V4 = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1',
  '100.128.0.1',
  '169.255.0.1',
  '192.169.0.1',
  '11.0.0.1',
  '198.20.0.1',
  '223.255.255.255',
];
for (const address of PUBLIC_V4) {
  test(`public IPv4 ${address} is allowed`, (t) => {
    t.true(classifyAddress(address).public);
    t.like(checkAddress(address, 443, []), { allowed: true, via: 'public' });
  });
}

// ---------------------------------------------------------------------------------------------
// IPv6 literals, including every form that embeds IPv4

const REFUSED_V6: Array<[string, AddressReason, EmbeddingForm?]> = [
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['fec0::1', 'site_local'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'reserved'],
  ['2001:10::1', 'reserved'],
  ['fd00:ec2::254', 'metadata'],
  ['fd20:ce::254', 'metadata'],
  ['::ffff:127.0.0.1', 'loopback', 'ipv4_mapped'],
  ['::ffff:7f00:1', 'loopback', 'ipv4_mapped'],
  ['0:0:0:0:0:ffff:10.0.0.1', 'private', 'ipv4_mapped'],
  ['::ffff:169.254.169.254', 'metadata', 'ipv4_mapped'],
  ['::ffff:0:127.0.0.1', 'loopback', 'ipv4_translated'],
  ['::127.0.0.1', 'loopback', 'ipv4_compatible'],
  ['::a9fe:a9fe', 'metadata', 'ipv4_compatible'],
  ['64:ff9b::127.0.0.1', 'loopback', 'nat64'],
  ['64:ff9b::a9fe:a9fe', 'metadata', 'nat64'],
  ['64:ff9b:1::a00:1', 'private', 'nat64_local'],
  ['2002:7f00:1::1', 'loopback', '6to4'],
  ['2002:a9fe:a9fe::1', 'metadata', '6to4'],
  ['2002:c0a8:101::1', 'private', '6to4'],
  ['2001:0:a00:1::1', 'private', 'teredo_server'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback', 'teredo_client'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'metadata', 'teredo_client'],
];
for (const [address, reason, form] of REFUSED_V6) {
  test(`IPv6 ${address} is refused as ${reason}${form ? ` (${form})` : ''}`, (t) => {
    const cls = classifyAddress(address);
    t.false(cls.public);
    if (cls.public) return;
    t.is(cls.reason, reason);
    t.is(cls.embedded?.form, form);
  });
}

test('deprecated IPv4-compatible and local NAT64 forms are refused even around a public IPv4', (t) => {
  t.like(classifyAddress('::8.8.8.8'), { public: false, reason: 'reserved' });
  t.like(classifyAddress('64:ff9b:1::808:808'), { public: false, reason: 'private' });
  t.like(classifyAddress('::ffff:0:8.8.8.8'), { public: false, reason: 'reserved' });
});

for (const address of [
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2001:0:808:808:8000:63bf:f7f7:f7f7',
]) {
  test(`public IPv6 ${address} is allowed`, (t) => {
    t.true(classifyAddress(address).public);
  });
}

test('a scoped (zone index) address is never public', (t) => {
  t.like(classifyAddress('2606:4700:4700::1111%eth0'), { public: false, reason: 'link_local' });
});

test('embeddedIPv4 finds both Teredo addresses', (t) => {
  t.deepEqual(embeddedIPv4('2001:0:4136:e378:8000:63bf:3fff:fdd2'), [
    { form: 'teredo_server', ipv4: '65.54.227.120' },
    { form: 'teredo_client', ipv4: '192.0.2.45' },
  ]);
});

test('classifyAddress rejects non-addresses', (t) => {
  t.throws(() => classifyAddress('example.com'), { instanceOf: TypeError });
});
