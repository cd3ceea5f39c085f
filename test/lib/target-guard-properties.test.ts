//! The target guard's address checks as properties over drawn addresses: every IPv4 address of a
//! refused range (against an oracle written apart from the guard's table), every IPv6 form that
//! embeds one, the refused IPv6 spaces, the spellings of an IPv4, and the allowlist's ports.
//! The guard's named cases (URLs, hosts, DNS names, the allowlist, rebinding): test/lib/target-guard.test.ts.
import test from 'ava';
import fc from 'fast-check';
import '../properties/property-runs.js'; // one fixed seed for the draws below
import { classifyAddress } from '../../lib/address-class.js';
import { checkAddress, parseAllowlist } from '../../lib/target-allowlist.js';
import { normaliseHost } from '../../lib/target-host.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });
const v4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const hex4 = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

/** Refused IPv4 ranges as integers: an oracle written independently of the guard's table. */
const ORACLE: Array<[number, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
  ['168.63.129.16', 32, 'metadata'], // the one metadata address outside the special ranges
].map(([ip, len, reason]) => [(ip as string).split('.').reduce((acc, o) => acc * 256 + Number(o), 0), len as number, reason as string]);
const oracleRefuses = (n: number) => ORACLE.some(([base, len]) => Math.floor(n / 2 ** (32 - len)) === Math.floor(base / 2 ** (32 - len)));

/** A random address inside one refused range. */
const refusedV4 = fc.tuple(fc.constantFrom(...ORACLE), u32).map(([[base, len], r]) => base + (len === 32 ? 0 : r % 2 ** (32 - len)));

test.serial('property: every IPv4 address inside a refused range is refused, everything else is public', (t) => {
  fc.assert(
    fc.property(refusedV4, (n) => !classifyAddress(v4(n)).public),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(u32, (n) => classifyAddress(v4(n)).public === !oracleRefuses(n)),
    { numRuns: 5000 },
  );
  t.pass();
});

test.serial('property: every IPv6 form embedding a refused IPv4 is refused with the IPv4 reason', (t) => {
  const forms = [
    (n: number) => `::ffff:${v4(n)}`,
    (n: number) => `::ffff:${hex4(n)}`,
    (n: number) => `64:ff9b::${hex4(n)}`,
    (n: number) => `2002:${hex4(n)}:1::1`,
    (n: number) => `2001:0:808:808:0:0:${hex4(~n >>> 0)}`,
    (n: number) => `2001:0:${hex4(n)}::1`,
  ];
  fc.assert(
    fc.property(refusedV4, fc.constantFrom(...forms), (n, form) => {
      const inner = classifyAddress(v4(n));
      const outer = classifyAddress(form(n));
      return !inner.public && !outer.public && outer.reason === inner.reason;
    }),
    { numRuns: 3000 },
  );
  t.pass();
});

test.serial('property: IPv4-mapped, NAT64 and 6to4 forms of a public IPv4 are public', (t) => {
  const publicV4 = u32.filter((n) => !oracleRefuses(n));
  fc.assert(
    fc.property(publicV4, (n) => [`::ffff:${v4(n)}`, `64:ff9b::${hex4(n)}`, `2002:${hex4(n)}::1`].every((a) => classifyAddress(a).public)),
    { numRuns: 2000 },
  );
  t.pass();
});

test.serial('property: every address in ULA, link-local, site-local and multicast IPv6 space is refused', (t) => {
  const word = fc.integer({ min: 0, max: 0xffff });
  const v6 = (first: number, rest: number[]) => [first, ...rest].map((w) => w.toString(16)).join(':');
  const ranges: Array<[number, number]> = [
    [0xfc00, 0xfdff],
    [0xfe80, 0xfebf],
    [0xfec0, 0xfeff],
    [0xff00, 0xffff],
  ];
  fc.assert(
    fc.property(fc.constantFrom(...ranges), word, fc.array(word, { minLength: 7, maxLength: 7 }), ([lo, hi], w, rest) => {
      return !classifyAddress(v6(lo + (w % (hi - lo + 1)), rest)).public;
    }),
    { numRuns: 2000 },
  );
  t.pass();
});

test.serial('property: decimal, hex and octal spellings of an IPv4 normalise to the same address', (t) => {
  fc.assert(
    fc.property(u32, (n) => {
      const expected = v4(n);
      const octets = expected.split('.').map(Number);
      const spellings = [
        String(n),
        `0x${n.toString(16)}`,
        octets.map((o) => `0${o.toString(8)}`).join('.'),
        octets.map((o) => `0x${o.toString(16)}`).join('.'),
      ];
      return spellings.every((s) => normaliseHost(s).ip === expected);
    }),
    { numRuns: 1000 },
  );
  t.pass();
});

test.serial('property: an allowlisted loopback port passes and every other port is refused', (t) => {
  const port = fc.integer({ min: 1, max: 65535 });
  fc.assert(
    fc.property(port, port, fc.integer({ min: 0, max: 0xffffff }), (allowed, other, host) => {
      const allowlist = parseAllowlist([`127.0.0.0/8:${allowed}`]);
      const address = v4(0x7f000000 + host);
      return checkAddress(address, allowed, allowlist).allowed && checkAddress(address, other, allowlist).allowed === (other === allowed);
    }),
    { numRuns: 1000 },
  );
  t.pass();
});
