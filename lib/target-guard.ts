//! The SSRF target guard: the one place that decides whether an address may be reached. It
//! normalises hosts, resolves names with the service's resolver, refuses non-public addresses
//! (also when hidden in IPv6 forms that embed IPv4) and hands out the checked address to connect
//! to, so that nothing resolves the name a second time. Classification is pure and exported.
import ipaddr from 'ipaddr.js';
import { isIPv4 } from 'node:net';
import { ConfigError } from './config.js';
import { ToolError } from './errors.js';
import { DnsError, type DnsResolver } from './resolver.js';

type IP = ipaddr.IPv4 | ipaddr.IPv6;

/** Why an address is refused. Stable strings: clients see them as the problem's `reason`. */
export type AddressReason =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link_local'
  | 'site_local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'metadata';

/** Why a URL or host is refused before any address is looked at. */
export type InputReason = 'invalid_url' | 'scheme' | 'credentials' | 'empty_host' | 'invalid_host' | 'invalid_port';

export type RefusalReason = AddressReason | InputReason;

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

// ---------------------------------------------------------------------------------------------
// Address classification (pure)

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
function parseAddress(input: string): IP {
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
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() ? (addr as ipaddr.IPv6).toIPv4Address().toString() : addr.toString();
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
  return EMBEDDINGS.filter((f) => addr.match(f.net)).map((f) => ({ form: f.form, ipv4: f.extract((addr as ipaddr.IPv6).parts).toString() }));
}

// ---------------------------------------------------------------------------------------------
// Allowlist (TARGET_ALLOWLIST)

export interface AllowlistEntry {
  /** The entry as written. */
  readonly text: string;
  readonly network: IP;
  readonly prefix: number;
  /** Only this port is let through when set. */
  readonly port?: number;
}

function parsePort(raw: string | undefined, entry: string): number | undefined {
  if (raw === undefined) return undefined;
  const port = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || port < 1 || port > 65535) throw new ConfigError(`TARGET_ALLOWLIST entry "${entry}": port must be 1-65535`);
  return port;
}

/**
 * Parses one allowlist entry: `a.b.c.d[/len][:port]`, `v6/len`, `[v6][/len][:port]`.
 * IPv6 entries need brackets to carry a port and a prefix when bare, so `::1:8443` cannot be
 * misread; a network with host bits set is refused as a likely typo. Throws `ConfigError`.
 */
export function parseAllowlistEntry(text: string): AllowlistEntry {
  const entry = text.trim();
  const fail = (why: string) => new ConfigError(`TARGET_ALLOWLIST entry "${text}": ${why}`);
  let address: string;
  let prefixText: string | undefined;
  let portText: string | undefined;
  let family: 4 | 6;
  let m: RegExpExecArray | null;
  if ((m = /^\[([^\]/]+)\](?:\/(\d{1,3}))?(?::(\d+))?$/.exec(entry))) {
    [address, prefixText, portText, family] = [m[1]!, m[2], m[3], 6];
    if (!ipaddr.IPv6.isValid(address) || address.includes('%')) throw fail('not an IPv6 address in brackets');
  } else if ((m = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d{1,2}))?(?::(\d+))?$/.exec(entry))) {
    [address, prefixText, portText, family] = [m[1]!, m[2], m[3], 4];
    if (!ipaddr.IPv4.isValidFourPartDecimal(address)) throw fail('not a dotted-decimal IPv4 address');
  } else if ((m = /^([0-9a-fA-F:.]*:[0-9a-fA-F:.]*)\/(\d{1,3})$/.exec(entry))) {
    [address, prefixText, family] = [m[1]!, m[2], 6];
    if (!ipaddr.IPv6.isValid(address)) throw fail('not an IPv6 CIDR');
  } else if (entry.includes(':') && !entry.includes('.') && ipaddr.IPv6.isValid(entry)) {
    throw fail('write IPv6 as a CIDR (e.g. ::1/128) or in brackets ([::1] or [::1]:8443)');
  } else {
    throw fail('expected a CIDR with an optional port, e.g. 10.0.0.0/8, 127.0.0.1/32:8080 or [::1]/128:8443');
  }
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) throw fail(`prefix length must be 0-${max}`);
  const network = parseAddress(address);
  const cidr = `${network.toString()}/${prefix}`;
  const base = family === 4 ? ipaddr.IPv4.networkAddressFromCIDR(cidr) : ipaddr.IPv6.networkAddressFromCIDR(cidr);
  if (base.toString() !== network.toString()) throw fail(`host bits set; did you mean ${base.toString()}/${prefix}?`);
  const port = parsePort(portText, text);
  return port === undefined ? { text: entry, network, prefix } : { text: entry, network, prefix, port };
}

/** Parses every entry (already split on commas); the first bad one throws `ConfigError`. */
export function parseAllowlist(entries: readonly string[]): AllowlistEntry[] {
  return entries.map((e) => e.trim()).filter(Boolean).map(parseAllowlistEntry);
}

/** The entry letting `address:port` through, if any. IPv4-mapped IPv6 matches as its IPv4. */
export function matchAllowlist(address: string, port: number, allowlist: readonly AllowlistEntry[]): AllowlistEntry | undefined {
  const parsed = parseAddress(address.split('%')[0]!);
  const addr = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  return allowlist.find(
    (e) => e.network.kind() === addr.kind() && addr.match(e.network, e.prefix) && (e.port === undefined || e.port === port),
  );
}

export type AddressVerdict =
  | { allowed: true; address: string; family: 4 | 6; via: 'public' }
  | { allowed: true; address: string; family: 4 | 6; via: 'allowlist'; entry: string }
  | (Extract<AddressClass, { public: false }> & { allowed: false });

/**
 * The guard's rule for one address and port: public addresses pass; others pass only when an
 * allowlist entry covers them. Metadata addresses pass only an entry naming that single address,
 * so a broad entry (`0.0.0.0/0`, `169.254.0.0/16`) cannot expose instance credentials by accident.
 */
export function checkAddress(address: string, port: number, allowlist: readonly AllowlistEntry[]): AddressVerdict {
  const cls = classifyAddress(address);
  const entry = matchAllowlist(address, port, allowlist);
  const single = entry && entry.prefix === (entry.network.kind() === 'ipv4' ? 32 : 128);
  if (entry && (cls.public || cls.reason !== 'metadata' || single)) {
    return { allowed: true, address: cls.address, family: cls.family, via: 'allowlist', entry: entry.text };
  }
  if (cls.public) return { allowed: true, address: cls.address, family: cls.family, via: 'public' };
  return { ...cls, allowed: false };
}

// ---------------------------------------------------------------------------------------------
// Host and URL normalisation (pure)

export interface NormalisedHost {
  /** Lower-case ASCII name without a trailing dot, or the canonical IP (IPv6 without brackets). */
  hostname: string;
  /** Set when the host is an IP literal. */
  ip?: string;
  family?: 4 | 6;
}

function refuse(reason: RefusalReason, message: string, cause?: unknown): ToolError {
  return new ToolError('target_not_allowed', message, { reason }, cause === undefined ? undefined : { cause });
}

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function ipHost(addr: IP): NormalisedHost {
  const ip = addr.toString();
  return { hostname: ip, ip, family: addr.kind() === 'ipv4' ? 4 : 6 };
}

/**
 * Normalises a host as a user typed it: a DNS name (IDN allowed), an IPv4 address in any of the
 * encodings browsers and inet_aton accept (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), or an
 * IPv6 address with or without brackets. Refuses (`invalid_host`) anything with a port, path,
 * credentials, zone index or characters a DNS name cannot hold.
 */
export function normaliseHost(input: string): NormalisedHost {
  const host = input.trim();
  if (!host) throw refuse('empty_host', 'The target has no host');
  const invalid = (why: string) => refuse('invalid_host', `Not a valid host: ${why}`);
  if (/[\s/\\?#@%]/.test(host) || /[\u0000-\u001f\u007f]/.test(host)) throw invalid('it contains characters a host name cannot hold');
  if (host.startsWith('[') || host.includes(':')) {
    const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    let addr: IP | undefined;
    try {
      addr = inner.includes('[') || inner.includes(']') ? undefined : parseAddress(inner);
    } catch {
      addr = undefined;
    }
    if (addr?.kind() !== 'ipv6') throw invalid('give the port separately, and IPv6 addresses as [v6] or v6');
    return ipHost(addr);
  }
  // The WHATWG host parser does what browsers do: IDNA to punycode, lower case, and IPv4 in
  // decimal, octal, hex and short forms to dotted decimal.
  let hostname: string;
  try {
    hostname = new URL(`http://${host}/`).hostname;
  } catch {
    throw invalid('it is neither a DNS name nor an IP address');
  }
  if (isIPv4(hostname)) return ipHost(ipaddr.IPv4.parse(hostname));
  hostname = hostname.replace(/\.$/, '');
  // Belt and braces: anything that still parses as a numeric IPv4 is treated as the address it
  // names (as inet_aton would), never as a DNS name.
  if (ipaddr.IPv4.isValid(hostname)) return ipHost(ipaddr.IPv4.parse(hostname));
  if (hostname.length > 253 || !hostname.split('.').every((l) => LABEL.test(l))) throw invalid('it is not a valid DNS name');
  return { hostname };
}

/** RFC 6761: `localhost` names are the loopback addresses, without asking DNS. */
export function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

export interface CheckedUrl {
  /** The parsed URL (already normalised by the WHATWG parser). */
  url: URL;
  /** Host to send in `Host` and SNI: normalised name, or IP (IPv6 without brackets). */
  hostname: string;
  /** Effective port (scheme default when the URL has none). */
  port: number;
  /** Set when the host is an IP literal (already checked). */
  ip?: string;
}

export interface CheckUrlOptions {
  /**
   * Schemes the caller accepts, with or without the colon.
   * @default ['http', 'https']. Widen only for tools that really speak another protocol.
   */
  schemes?: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// The guard

export interface ResolvedTarget {
  /** Normalised host name (or IP) the caller asked for: use it for `Host` and SNI. */
  readonly hostname: string;
  readonly port: number;
  /** The checked address to connect to. Connect here; never resolve `hostname` again. */
  readonly address: string;
  readonly family: 4 | 6;
  /** Every address the name resolved to; all of them passed the check. */
  readonly addresses: readonly string[];
  /** `allowlist` when any address needed the operator allowlist to pass. */
  readonly via: 'public' | 'allowlist';
}

export interface TargetGuardOptions {
  /**
   * `TARGET_ALLOWLIST` entries: CIDRs with an optional `:port` that may be reached although not
   * public. Parsed strictly at creation; a bad entry throws `ConfigError`. Empty in production;
   * tests list their loopback fixture ports here instead of switching the guard off.
   */
  allowlist: readonly string[];
  /** The service resolver (`createResolver({ servers: DNS_SERVERS })`). */
  resolver: Pick<DnsResolver, 'lookup'>;
}

export interface TargetGuard {
  /**
   * Parses and checks a URL without DNS: scheme, credentials, host syntax, port, and the address
   * itself when the host is an IP literal. Throws `ToolError('target_not_allowed')`.
   */
  checkUrl(url: string | URL, options?: CheckUrlOptions): CheckedUrl;
  /**
   * Resolves `host` with the service resolver and checks every address; refuses if any one is
   * refused. Takes hosts as URLs carry them and as users type them (ping, ssl-check, smtp-test):
   * any encoding, `[v6]` too. Throws `ToolError('target_not_allowed')` or, when the name cannot
   * be resolved, `ToolError('upstream_error')`.
   */
  resolveTarget(host: string, port: number): Promise<ResolvedTarget>;
  /**
   * Checks a host as `resolveTarget` takes it, without DNS: port, host syntax, and the address
   * itself when the host is an IP literal. Throws `ToolError('target_not_allowed')`.
   */
  checkHost(host: string, port: number): void;
  /** `checkUrl`, then `resolveTarget` of its host and port. */
  resolveUrl(url: string | URL, options?: CheckUrlOptions): Promise<CheckedUrl & { target: ResolvedTarget }>;
  /** The rule for one address and port, with this guard's allowlist. */
  checkAddress(address: string, port: number): AddressVerdict;
  /** True for targets this guard produced (connectors refuse anything else). */
  issued(target: ResolvedTarget): boolean;
}

const REASON_TEXT: Record<AddressReason, string> = {
  unspecified: 'an unspecified ("this network") address',
  loopback: 'a loopback address',
  private: 'a private network address',
  cgnat: 'a shared (carrier-grade NAT) address',
  link_local: 'a link-local address',
  site_local: 'a site-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  documentation: 'a documentation address',
  metadata: 'a cloud metadata address',
};

function addressRefusal(hostname: string, isLiteral: boolean, verdict: Extract<AddressVerdict, { allowed: false }>): ToolError {
  const what = REASON_TEXT[verdict.reason] + (verdict.embedded ? ' (inside an IPv6 address)' : '');
  const message = isLiteral ? `Target not allowed: ${hostname} is ${what}` : `Target not allowed: ${hostname} resolves to ${what}`;
  // The resolved address stays out of the client's answer (it would map internal names for anyone
  // who asks); the cause carries it to the logs.
  const detail = `${verdict.address} in ${verdict.range}${verdict.embedded ? ` via ${verdict.embedded.form} ${verdict.embedded.ipv4}` : ''}`;
  return refuse(verdict.reason, message, new Error(detail));
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw refuse('invalid_port', 'Target port must be 1-65535');
}

export function createTargetGuard(options: TargetGuardOptions): TargetGuard {
  const allowlist = parseAllowlist(options.allowlist);
  const { resolver } = options;
  const issuedTargets = new WeakSet<ResolvedTarget>();

  const check = (address: string, port: number) => checkAddress(address, port, allowlist);

  function checkUrl(input: string | URL, opts: CheckUrlOptions = {}): CheckedUrl {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch (err) {
      throw refuse('invalid_url', 'Target is not a valid absolute URL', err);
    }
    const schemes = (opts.schemes ?? ['http', 'https']).map((s) => s.toLowerCase().replace(/:?$/, ':'));
    if (!schemes.includes(url.protocol)) {
      throw refuse('scheme', `Target scheme ${url.protocol.slice(0, -1)} is not allowed (use ${schemes.map((s) => s.slice(0, -1)).join(' or ')})`);
    }
    if (url.username || url.password) throw refuse('credentials', 'Target URLs must not carry credentials');
    if (!url.hostname) throw refuse('empty_host', 'The target URL has no host');
    const host = normaliseHost(url.hostname);
    const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
    if (port === undefined) throw refuse('invalid_port', `Target URL needs a port for scheme ${url.protocol.slice(0, -1)}`);
    checkPort(port);
    if (host.ip) {
      const verdict = check(host.ip, port);
      if (!verdict.allowed) throw addressRefusal(host.hostname, true, verdict);
      return { url, hostname: host.hostname, port, ip: host.ip };
    }
    return { url, hostname: host.hostname, port };
  }

  async function addressesOf(host: NormalisedHost): Promise<string[]> {
    if (host.ip) return [host.ip];
    if (isLocalhostName(host.hostname)) return ['127.0.0.1', '::1'];
    let answer;
    try {
      answer = await resolver.lookup(host.hostname);
    } catch (err) {
      const kind = err instanceof DnsError ? err.kind : 'error';
      const text = err instanceof DnsError ? err.message : `Could not resolve ${host.hostname}`;
      throw new ToolError('upstream_error', text, { reason: `dns_${kind}` }, { cause: err });
    }
    if (!answer.found) {
      const why = answer.status === 'nxdomain' ? 'no such domain' : 'the name has no address records';
      throw new ToolError('upstream_error', `Could not resolve ${host.hostname}: ${why}`, { reason: `dns_${answer.status}` });
    }
    return answer.addresses.map((a) => a.address);
  }

  async function resolveTarget(hostInput: string, port: number): Promise<ResolvedTarget> {
    checkPort(port);
    const host = normaliseHost(hostInput);
    const addresses = await addressesOf(host);
    const verdicts = addresses.map((a) => check(a, port));
    for (const v of verdicts) if (!v.allowed) throw addressRefusal(host.hostname, Boolean(host.ip), v);
    const allowed = verdicts as Extract<AddressVerdict, { allowed: true }>[];
    // IPv4 first: it is the family every network here can route.
    const chosen = allowed.find((v) => v.family === 4) ?? allowed[0]!;
    const target: ResolvedTarget = Object.freeze({
      hostname: host.hostname,
      port,
      address: chosen.address,
      family: chosen.family,
      addresses: Object.freeze(allowed.map((v) => v.address)),
      via: allowed.some((v) => v.via === 'allowlist') ? 'allowlist' : 'public',
    });
    issuedTargets.add(target);
    return target;
  }

  function checkHost(hostInput: string, port: number): void {
    checkPort(port);
    const host = normaliseHost(hostInput);
    if (!host.ip) return;
    const verdict = check(host.ip, port);
    if (!verdict.allowed) throw addressRefusal(host.hostname, true, verdict);
  }

  return {
    checkUrl,
    checkHost,
    resolveTarget,
    async resolveUrl(url, opts) {
      const checked = checkUrl(url, opts);
      return { ...checked, target: await resolveTarget(checked.hostname, checked.port) };
    },
    checkAddress: check,
    issued: (target) => issuedTargets.has(target),
  };
}
