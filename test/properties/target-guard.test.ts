//! Properties of the target guard (lib/target-guard.ts) over random addresses: any address in a
//! refused range is refused however it is written (decimal, hex, octal, short forms, inside
//! IPv6), through URLs and through DNS answers that mix it with public ones; IPv6 ranges alike;
//! the allowlist lets through exactly its CIDR (and port), and never a metadata address unless
//! named alone.
import test from 'ava';
import fc from 'fast-check';
import { propertyRuns } from './property-runs.js';
import { classifyAddress, embeddedIPv4 } from '../../lib/address-class.js';
import { checkAddress, matchAllowlist, parseAllowlist } from '../../lib/target-allowlist.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { normaliseHost } from '../../lib/target-host.js';
import { ServiceError } from '../../contracts/errors.js';

const RUNS = propertyRuns(300);

/** Refused IPv4 ranges with the reason the guard gives (docs/API.md: private, loopback, link-local, reserved, multicast, metadata). */
const REFUSED_V4: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['127.0.0.0', 8, 'loopback'],
  ['10.0.0.0', 8, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['169.254.0.0', 16, 'link_local'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const toInt = (dotted: string) => dotted.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const toDotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const inRange = (n: number, net: string, prefix: number) => prefix === 0 || n >>> (32 - prefix) === toInt(net) >>> (32 - prefix);

/** Whether the guard refuses `url` as a target (and not for another reason). */
function refusesUrl(guard: TargetGuard, url: string): boolean {
  try {
    guard.checkUrl(url);
    return false;
  } catch (err) {
    return err instanceof ServiceError && err.code === 'target_not_allowed';
  }
}

/** A random address inside one refused range, with the range. */
const refusedV4 = fc
  .record({ range: fc.constantFrom(...REFUSED_V4), offset: fc.nat() })
  .map(({ range: [net, prefix, reason], offset }) => ({ n: (toInt(net) + (offset % 2 ** (32 - prefix))) >>> 0, net, prefix, reason }));

/** Ways a user may write one IPv4 address that browsers and inet_aton read as that address. */
function spellings(n: number): string[] {
  const o = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  return [
    toDotted(n),
    String(n),
    `0x${n.toString(16)}`,
    o.map((x) => `0${x.toString(8)}`).join('.'),
    o.map((x) => `0x${x.toString(16)}`).join('.'),
    `${o[0]}.${(n & 0xffffff) >>> 0}`,
    `${o[0]}.${o[1]}.${n & 0xffff}`,
  ];
}

/** IPv6 forms that carry the IPv4 `n` and reach it (mapped, NAT64, 6to4). */
function carriers(n: number): string[] {
  const hi = (n >>> 16).toString(16);
  const lo = (n & 0xffff).toString(16);
  return [`::ffff:${toDotted(n)}`, `::ffff:${hi}:${lo}`, `64:ff9b::${hi}:${lo}`, `2002:${hi}:${lo}::1`];
}

test("an IPv4 address inside a refused range is refused with its range's reason (or metadata)", (t) => {
  fc.assert(
    fc.property(refusedV4, ({ n, reason }) => {
      const verdict = checkAddress(toDotted(n), 443, []);
      // 255.255.255.255 sits inside 240.0.0.0/4 but has its own, more specific reason.
      const expected = n === 0xffffffff ? 'broadcast' : reason;
      return !verdict.allowed && (verdict.reason === expected || verdict.reason === 'metadata');
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('however the address is spelled, as a host or in a URL, the guard refuses it', (t) => {
  const guard = createTargetGuard({
    allowlist: [],
    resolver: {
      lookup: async () => {
        throw new Error('no DNS for IP literals');
      },
    },
  });
  fc.assert(
    fc.property(refusedV4, fc.nat({ max: 6 }), ({ n }, which) => {
      const spelled = spellings(n)[which]!;
      const host = normaliseHost(spelled);
      if (host.ip !== toDotted(n)) return false;
      return refusesUrl(guard, `http://${spelled}:8080/x`);
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('an IPv6 address carrying a refused IPv4 (mapped, NAT64, 6to4) is refused, also in brackets in a URL', (t) => {
  const guard = createTargetGuard({
    allowlist: [],
    resolver: { lookup: async () => ({ found: false, status: 'nxdomain', addresses: [] }) },
  });
  fc.assert(
    fc.property(refusedV4, fc.nat({ max: 3 }), ({ n }, which) => {
      const v6 = carriers(n)[which]!;
      if (classifyAddress(v6).public) return false;
      return refusesUrl(guard, `https://[${v6}]/`);
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('an IPv4 address and the IPv6 forms that reach it are judged alike', (t) => {
  fc.assert(
    fc.property(fc.nat({ max: 2 ** 32 - 1 }), (n) => {
      const v4 = classifyAddress(toDotted(n)).public;
      return carriers(n).every((v6) => classifyAddress(v6).public === v4);
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('a name is refused when any one of its addresses is refused, whatever the order and the public ones beside it', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      refusedV4,
      fc.array(fc.constantFrom('93.184.215.14', '1.1.1.1', '2606:4700:4700::1111'), { maxLength: 3 }),
      fc.nat(),
      async ({ n }, publics, at) => {
        const addresses: string[] = [...publics];
        addresses.splice(at % (publics.length + 1), 0, toDotted(n));
        const guard = createTargetGuard({
          allowlist: [],
          resolver: {
            lookup: async () => ({
              found: true,
              addresses: addresses.map((a) => ({ address: a, family: a.includes(':') ? 6 : 4, ttl: 60 })) as never,
            }),
          },
        });
        try {
          await guard.resolveTarget('mixed.example', 443);
          return false;
        } catch (err) {
          return err instanceof ServiceError && err.code === 'target_not_allowed';
        }
      },
    ),
    { numRuns: RUNS },
  );
  t.pass();
});

const cidr = fc.record({ base: fc.nat({ max: 2 ** 32 - 1 }), prefix: fc.integer({ min: 0, max: 32 }) }).map(({ base, prefix }) => {
  const net = prefix === 0 ? 0 : ((base >>> (32 - prefix)) << (32 - prefix)) >>> 0;
  return { net: toDotted(net), prefix };
});

test('an allowlist entry matches exactly the addresses of its CIDR, and only its port when it names one', (t) => {
  fc.assert(
    fc.property(
      cidr,
      fc.nat({ max: 2 ** 32 - 1 }),
      fc.option(fc.integer({ min: 1, max: 65535 })),
      fc.integer({ min: 1, max: 65535 }),
      ({ net, prefix }, n, port, askedPort) => {
        const entry = `${net}/${prefix}${port === null ? '' : `:${port}`}`;
        const matched = matchAllowlist(toDotted(n), askedPort, parseAllowlist([entry])) !== undefined;
        return matched === (inRange(n, net, prefix) && (port === null || port === askedPort));
      },
    ),
    { numRuns: RUNS },
  );
  t.pass();
});

test('an allowlisted refused address passes; a metadata address passes only an entry naming it alone', (t) => {
  fc.assert(
    fc.property(refusedV4, fc.integer({ min: 0, max: 8 }), ({ n, prefix }, widen) => {
      const entryPrefix = Math.max(0, prefix - widen);
      const net = entryPrefix === 0 ? 0 : ((n >>> (32 - entryPrefix)) << (32 - entryPrefix)) >>> 0;
      const allowlist = parseAllowlist([`${toDotted(net)}/${entryPrefix}`]);
      const verdict = checkAddress(toDotted(n), 443, allowlist);
      const metadata =
        classifyAddress(toDotted(n)).public === false && (classifyAddress(toDotted(n)) as { reason: string }).reason === 'metadata';
      if (!metadata) return verdict.allowed;
      const alone = checkAddress(toDotted(n), 443, parseAllowlist([`${toDotted(n)}/32`]));
      return verdict.allowed === (entryPrefix === 32) && alone.allowed;
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

/** Refused IPv6 ranges (beside the IPv4 carriers above) with the reason the guard gives. */
const REFUSED_V6: ReadonlyArray<readonly [string, number, string]> = [
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'site_local'],
  ['fc00::', 7, 'private'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2001:2::', 48, 'benchmarking'],
];

/** The eight 16-bit words of an IPv6 address written with at most one `::`. */
function words(v6: string): number[] {
  const [head, tail = ''] = v6.split('::');
  const h = head ? head.split(':').map((w) => parseInt(w, 16)) : [];
  const t = tail ? tail.split(':').map((w) => parseInt(w, 16)) : [];
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

/** `random` words with the first `prefix` bits taken from `net`. */
function withPrefix(net: number[], prefix: number, random: number[]): string {
  return net
    .map((w, i) => {
      const bits = Math.max(0, Math.min(16, prefix - i * 16));
      const mask = bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
      return ((w & mask) | (random[i]! & ~mask & 0xffff)).toString(16);
    })
    .join(':');
}

const word = fc.integer({ min: 0, max: 0xffff });

test("an IPv6 address inside a refused range is refused with its range's reason (or metadata), also in brackets in a URL", (t) => {
  const guard = createTargetGuard({
    allowlist: [],
    resolver: { lookup: async () => ({ found: false, status: 'nxdomain', addresses: [] }) },
  });
  fc.assert(
    fc.property(fc.constantFrom(...REFUSED_V6), fc.array(word, { minLength: 8, maxLength: 8 }), ([net, prefix, reason], random) => {
      const address = withPrefix(words(net), prefix, random);
      const verdict = classifyAddress(address);
      if (verdict.public || (verdict.reason !== reason && verdict.reason !== 'metadata')) return false;
      return refusesUrl(guard, `https://[${address}]:8443/`);
    }),
    { numRuns: RUNS },
  );
  t.pass();
});

test('outside global unicast (2000::/3) only an IPv6 form carrying a public IPv4 is public', (t) => {
  fc.assert(
    fc.property(fc.array(word, { minLength: 8, maxLength: 8 }), (random) => {
      if (random[0]! >>> 13 === 0b001) random[0] = random[0]! ^ 0x8000; // move it out of 2000::/3
      const address = random.map((w) => w.toString(16)).join(':');
      return !classifyAddress(address).public || embeddedIPv4(address).length > 0;
    }),
    { numRuns: RUNS },
  );
  t.pass();
});
