//! A key's `allowedIps` (pure): IPv4 and IPv6 CIDRs (a bare address is its /32 or /128), parsed
//! and matched against the client address. IPv4-mapped IPv6 addresses match as their IPv4.
import ipaddr from 'ipaddr.js';
import type { IP } from './address-class.js';

export interface Cidr {
  readonly network: IP;
  readonly prefix: number;
}

/** The CIDR `text` stands for, or a reason it is not one (host bits set count as a typo). */
export function parseCidr(text: string): Cidr | { error: string } {
  const m = /^([^/\s]+)(?:\/(\d{1,3}))?$/.exec(text);
  if (!m) return { error: 'is not a CIDR (e.g. 203.0.113.0/24 or 2001:db8::/32)' };
  const [, address, prefixText] = m;
  let network: IP;
  if (ipaddr.IPv4.isValidFourPartDecimal(address!)) network = ipaddr.IPv4.parse(address!);
  else if (ipaddr.IPv6.isValid(address!) && !address!.includes('%')) network = ipaddr.IPv6.parse(address!);
  else return { error: 'is not an IPv4 or IPv6 address with an optional /prefix' };
  const max = network.kind() === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return { error: `has a prefix length over ${max}` };
  const base = ipaddr.parseCIDR(`${network.toString()}/${prefix}`);
  const first =
    network.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${network}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${network}/${prefix}`);
  if (first.toString() !== network.toString()) return { error: `has host bits set; did you mean ${first.toString()}/${prefix}?` };
  return { network: base[0], prefix };
}

/** The client's address as matched: IPv4-mapped IPv6 as IPv4, a zone dropped; null if unreadable. */
function clientAddress(address: string): IP | null {
  const bare = address.split('%')[0]!;
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
}

/** Whether `address` falls in one of `cidrs` (written as stored; unparsable entries match nothing). */
export function ipAllowed(address: string, cidrs: readonly string[]): boolean {
  const addr = clientAddress(address);
  if (!addr) return false;
  return cidrs.some((text) => {
    const cidr = parseCidr(text);
    return 'network' in cidr && cidr.network.kind() === addr.kind() && addr.match(cidr.network, cidr.prefix);
  });
}
