//! The operator allowlist (`TARGET_ALLOWLIST`): CIDRs, with an optional port, that may be reached
//! although not public; and the verdict for one address and port with it.
import ipaddr from 'ipaddr.js';
import { classifyAddress, parseAddress, type AddressClass, type IP } from './address-class.js';
import { ConfigError } from './config.js';

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
  return entries
    .map((e) => e.trim())
    .filter(Boolean)
    .map(parseAllowlistEntry);
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
