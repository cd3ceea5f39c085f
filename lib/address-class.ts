//! Address classification (pure): whether an IPv4 or IPv6 address is public, and if not which
//! refused range it falls in, also when an IPv6 form carries the decisive IPv4 inside it.
import ipaddr from 'ipaddr.js';

export type IP = ipaddr.IPv4 | ipaddr.IPv6;

/** Why an address is refused. Stable strings: clients see them as the problem's `reason` (in this order in the error guide). */
export const ADDRESS_REASONS = [
  'loopback',
  'private',
  'link_local',
  'site_local',
  'cgnat',
  'multicast',
  'broadcast',
  'reserved',
  'unspecified',
  'benchmarking',
  'documentation',
  'metadata',
] as const;

export type AddressReason = (typeof ADDRESS_REASONS)[number];

/** IPv6 forms that carry an IPv4 address inside them. */
export type EmbeddingForm =
  | 'ipv4_mapped'
  | 'ipv4_translated'
  | 'ipv4_compatible'
  | 'nat64'
  | 'nat64_local'
  | '6to4'
  | 'teredo_server'
  | 'teredo_client';

export type AddressClass =
  | { public: true; address: string; family: 4 | 6 }
  | {
      public: false;
      address: string;
      family: 4 | 6;
      reason: AddressReason;
      /** The refused range that matched, e.g. `127.0.0.0/8`. */
      range: string;
      /** Set when the decisive address was an IPv4 embedded in this IPv6 address. */
      embedded?: { form: EmbeddingForm; ipv4: string };
    };

/**
 * Cloud metadata and credential endpoints. Checked first so the reason says `metadata`, and
 * never unlocked by a broad allowlist entry (see `checkAddress`).
 */
const METADATA: readonly string[] = [
  '169.254.169.254/32', // AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack, Hetzner ... instance metadata
  '169.254.170.2/32', // AWS ECS task metadata and credentials
  '169.254.170.23/32', // AWS EKS Pod Identity agent
  '169.254.0.23/32', // Tencent Cloud metadata
  '100.100.100.200/32', // Alibaba Cloud metadata
  '192.0.0.192/32', // Oracle Cloud (classic) metadata
  '168.63.129.16/32', // Azure WireServer: public space, but host-local inside Azure
  'fd00:ec2::254/128', // AWS instance metadata over IPv6
  'fd00:ec2::23/128', // AWS EKS Pod Identity agent over IPv6
  'fd20:ce::254/128', // GCP metadata over IPv6
];

/** Refused IPv4 ranges, first match wins (IANA special-purpose registry, not globally reachable). */
const IPV4_RANGES: ReadonlyArray<readonly [string, AddressReason]> = [
  ['0.0.0.0/8', 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on most stacks
  ['127.0.0.0/8', 'loopback'],
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['169.254.0.0/16', 'link_local'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'documentation'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['198.18.0.0/15', 'benchmarking'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

/** Refused IPv6 ranges checked after the embedding forms; anything outside 2000::/3 is refused too. */
const IPV6_RANGES: ReadonlyArray<readonly [string, AddressReason]> = [
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'site_local'],
  ['fc00::/7', 'private'], // unique local
  ['ff00::/8', 'multicast'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['2001::/23', 'reserved'], // IETF protocol assignments (Teredo, inside it, is handled as an embedding)
];

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

interface Range {
  readonly cidr: string;
  readonly net: [IP, number];
  readonly reason: AddressReason;
}

const compile = (list: ReadonlyArray<readonly [string, AddressReason]>): Range[] =>
  list.map(([cidr, reason]) => ({ cidr, reason, net: ipaddr.parseCIDR(cidr) }));

const METADATA_RANGES = compile(METADATA.map((cidr) => [cidr, 'metadata'] as const));
const V4 = compile(IPV4_RANGES);
const V6 = compile(IPV6_RANGES);
// :: and ::1 sit inside ::/96 (IPv4-compatible) but are addresses in their own right: checked first.
const V6_SPECIAL = compile([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
]);

function firstMatch(addr: IP, ranges: readonly Range[]): Range | undefined {
  return ranges.find((r) => r.net[0].kind() === addr.kind() && addr.match(r.net));
}

const v4FromWords = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

interface Embedding {
  form: EmbeddingForm;
  cidr: string;
  net: [IP, number];
  /** The IPv4 the form carries. */
  extract(parts: number[]): ipaddr.IPv4;
  /** Whether the form reaches anything when the embedded IPv4 is public. */
  routable: boolean;
}

type Extract4 = (parts: number[]) => ipaddr.IPv4;

const EMBEDDINGS: readonly Embedding[] = (
  [
    ['ipv4_mapped', '::ffff:0:0/96', (p) => v4FromWords(p[6]!, p[7]!), true],
    ['ipv4_translated', '::ffff:0:0:0/96', (p) => v4FromWords(p[6]!, p[7]!), false],
    ['nat64', '64:ff9b::/96', (p) => v4FromWords(p[6]!, p[7]!), true],
    // RFC 8215 local-use prefix: translated by the site's own NAT64, so never globally reachable
    // and refused whole; the embedded IPv4 (common /96 layout) only names a sharper reason.
    ['nat64_local', '64:ff9b:1::/48', (p) => v4FromWords(p[6]!, p[7]!), false],
    ['6to4', '2002::/16', (p) => v4FromWords(p[1]!, p[2]!), true],
    // Teredo carries its server's IPv4 in clear and the client's with every bit inverted.
    ['teredo_server', '2001::/32', (p) => v4FromWords(p[2]!, p[3]!), true],
    ['teredo_client', '2001::/32', (p) => v4FromWords(~p[6]! & 0xffff, ~p[7]! & 0xffff), true],
    ['ipv4_compatible', '::/96', (p) => v4FromWords(p[6]!, p[7]!), false],
  ] satisfies Array<[EmbeddingForm, string, Extract4, boolean]>
).map(([form, cidr, extract, routable]) => ({ form, cidr, net: ipaddr.parseCIDR(cidr), extract, routable }));

/**
 * Parses an address. IPv6 with a dotted IPv4 tail is rewritten to hex first: ipaddr.js reads
 * `::a.b.c.d` as IPv4-mapped (`::ffff:a.b.c.d`), but it is the IPv4-compatible form, and
 * resolvers print such answers that way.
 */
export function parseAddress(input: string): IP {
  if (input.includes(':')) {
    const tail = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(input);
    let text = input;
    if (tail && ipaddr.IPv4.isValidFourPartDecimal(tail[2]!)) {
      const o = tail[2]!.split('.').map(Number) as [number, number, number, number];
      text = `${tail[1]}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
    }
    if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  } else if (ipaddr.IPv4.isValid(input)) {
    return ipaddr.IPv4.parse(input);
  }
  throw new TypeError(`not an IP address: ${JSON.stringify(input)}`);
}

/** The canonical text of an address, IPv4-mapped IPv6 as its IPv4 (how sockets report peers varies). */
export function canonicalAddress(input: string): string {
  const addr = parseAddress(input.split('%')[0]!);
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
    ? (addr as ipaddr.IPv6).toIPv4Address().toString()
    : addr.toString();
}

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  const address = addr.toString();
  const hit = firstMatch(addr, METADATA_RANGES) ?? firstMatch(addr, V4);
  return hit ? { public: false, address, family: 4, reason: hit.reason, range: hit.cidr } : { public: true, address, family: 4 };
}

function classifyV6(addr: ipaddr.IPv6): AddressClass {
  const address = addr.toString();
  const refuse = (reason: AddressReason, range: string, embedded?: { form: EmbeddingForm; ipv4: string }): AddressClass =>
    embedded ? { public: false, address, family: 6, reason, range, embedded } : { public: false, address, family: 6, reason, range };

  const meta = firstMatch(addr, METADATA_RANGES);
  if (meta) return refuse(meta.reason, meta.cidr);
  const special = firstMatch(addr, V6_SPECIAL);
  if (special) return refuse(special.reason, special.cidr);

  let carriesPublicIPv4 = false;
  for (const form of EMBEDDINGS) {
    if (!addr.match(form.net)) continue;
    const inner = classifyV4(form.extract(addr.parts));
    if (!inner.public) return refuse(inner.reason, inner.range, { form: form.form, ipv4: inner.address });
    if (!form.routable) return refuse(form.form === 'nat64_local' ? 'private' : 'reserved', form.cidr);
    carriesPublicIPv4 = true;
  }
  // Mapped, NAT64, 6to4 and Teredo forms reach the IPv4 they carry, which is public here.
  if (carriesPublicIPv4) return { public: true, address, family: 6 };
  const hit = firstMatch(addr, V6);
  if (hit) return refuse(hit.reason, hit.cidr);
  if (!addr.match(GLOBAL_UNICAST)) return refuse('reserved', 'outside 2000::/3');
  return { public: true, address, family: 6 };
}

/**
 * Classifies one IP address (any form ipaddr.js parses, IPv4 also in inet_aton's numeric forms).
 * Throws `TypeError` for a string that is not an address.
 */
export function classifyAddress(input: string): AddressClass {
  const zone = input.indexOf('%');
  const addr = parseAddress(zone >= 0 ? input.slice(0, zone) : input);
  const result = addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
  // A zone index only means something on a link: never a public target.
  if (zone >= 0 && result.public) return { ...result, public: false, reason: 'link_local', range: 'scoped address' };
  return result;
}

/** Every IPv4 carried inside an IPv6 address, with the form that carries it (pure helper for tests and logs). */
export function embeddedIPv4(input: string): { form: EmbeddingForm; ipv4: string }[] {
  const addr = parseAddress(input);
  if (addr.kind() !== 'ipv6') return [];
  return EMBEDDINGS.filter((f) => addr.match(f.net)).map((f) => ({
    form: f.form,
    ipv4: f.extract((addr as ipaddr.IPv6).parts).toString(),
  }));
}
