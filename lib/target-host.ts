//! Host and URL normalisation (pure): a host as URLs carry it and as users type it, in any
//! encoding, reduced to one lower-case name or one canonical IP; and the refusal for bad input.
import ipaddr from 'ipaddr.js';
import { isIPv4 } from 'node:net';
import { parseAddress, type AddressReason, type IP } from './address-class.js';
import { ServiceError } from '../contracts/errors.js';

/** Why a URL or host is refused before any address is looked at. */
export const INPUT_REASONS = ['invalid_url', 'scheme', 'credentials', 'empty_host', 'invalid_host', 'invalid_port'] as const;

export type InputReason = (typeof INPUT_REASONS)[number];

export type RefusalReason = AddressReason | InputReason;

const INPUT_REASON_SET: ReadonlySet<string> = new Set(INPUT_REASONS);

/** A guard refusal about how a URL is written (scheme, credentials, port), not where it points: a caller's bad field. */
export function isInputRefusal(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.code === 'target_not_allowed' && INPUT_REASON_SET.has(err.extras.reason as string);
}

export interface NormalisedHost {
  /** Lower-case ASCII name without a trailing dot, or the canonical IP (IPv6 without brackets). */
  hostname: string;
  /** Set when the host is an IP literal. */
  ip?: string;
  family?: 4 | 6;
}

export function refuse(reason: RefusalReason, message: string, cause?: unknown): ServiceError {
  return new ServiceError('target_not_allowed', message, { reason }, cause === undefined ? undefined : { cause });
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
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
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
