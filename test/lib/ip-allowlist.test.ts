//! A key's allowedIps: which CIDRs parse, and which client addresses they let through.
import test from 'ava';
import { ipAllowed, parseCidr } from '../../lib/ip-allowlist.js';

test('IPv4 and IPv6 CIDRs parse; a bare address is a single host', (t) => {
  t.like(parseCidr('10.0.0.0/8'), { prefix: 8 });
  t.like(parseCidr('203.0.113.7'), { prefix: 32 });
  t.like(parseCidr('2001:db8::/32'), { prefix: 32 });
  t.like(parseCidr('::1'), { prefix: 128 });
});

test('malformed CIDRs, host bits and long prefixes are refused with a reason', (t) => {
  for (const bad of ['', 'not-an-ip', '10.0.0.0/33', '2001:db8::/129', '10.0.0.1/8', '300.1.1.1', '10.0.0.0/8/8', 'fe80::1%eth0/128']) {
    t.true('error' in parseCidr(bad), bad);
  }
  t.regex((parseCidr('10.0.0.1/8') as { error: string }).error, /10\.0\.0\.0\/8/);
});

test('an address matches a CIDR of its family; IPv4-mapped IPv6 matches as IPv4', (t) => {
  t.true(ipAllowed('10.1.2.3', ['10.0.0.0/8']));
  t.false(ipAllowed('11.1.2.3', ['10.0.0.0/8']));
  t.true(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8']));
  t.true(ipAllowed('2001:db8::5', ['192.0.2.0/24', '2001:db8::/32']));
  t.false(ipAllowed('2001:db9::5', ['2001:db8::/32']));
  t.false(ipAllowed('', ['0.0.0.0/0']), 'an unknown address matches nothing');
  t.true(ipAllowed('127.0.0.1', ['0.0.0.0/0']));
});
