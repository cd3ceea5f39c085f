//! dns-lookup: records of one type for a domain name. Its precheck needs no I/O: the hostname is
//! a domain name (IDN converted to its ASCII form), not a URL or an IP address, and not a name
//! that only means something inside a private network.
//!
//! Why refuse internal names: the service resolves through `DNS_SERVERS`. Where an operator points
//! that at a resolver inside their network, single-label names (`db`, `redis`), `.internal`,
//! `.local` and the like would answer with the layout of that network to anyone with an API key.
//! Public names are never refused, also when they resolve to private addresses: any public
//! resolver gives the same answer. Operators should still use a public recursive resolver, not a
//! split-horizon one (see docs/API.md).
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, StringEnum, type Validated } from '../../lib/schema-types.js';
import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { ToolError, invalidField } from '../../contracts/errors.js';
import { RECORD_TYPES, type RecordType } from '../../lib/resolver.js';
import { defineTool } from './definition.js';

export const DnsLookupInput = ClosedObject(
  {
    hostname: Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        'Domain to resolve, without a scheme, path or port, e.g. example.com or _dmarc.example.com. Internationalised names are converted to their ASCII (punycode) form; a trailing dot is allowed. IP addresses are refused (400).',
    }),
    recordType: Defaulted(
      StringEnum(RECORD_TYPES, {
        description:
          'Record type: A (IPv4 address), AAAA (IPv6 address), MX (mail exchangers), TXT (text), NS (name servers), CNAME (alias target) or SOA (zone authority).',
      }),
      'A',
    ),
  },
  {
    description:
      "A domain name and the record type to look up through the service's resolvers. Single-label names (db, redis) and names under localhost, local, internal, arpa, lan, home, corp, intranet, private and localdomain are refused (422 target_not_allowed, reason internal_name): they only mean something inside a private network.",
    examples: [{ hostname: 'example.com', recordType: 'MX' }],
  },
);
export type DnsLookupInput = Validated<typeof DnsLookupInput>;
export const DnsLookupOutput = ClosedObject(
  {
    hostname: Type.String({ description: 'Hostname queried, in ASCII, lower case, without a trailing dot.' }),
    recordType: StringEnum(RECORD_TYPES, { description: 'Type queried.' }),
    records: Type.Array(
      Type.Union([
        ClosedObject({ address: Type.String(), ttl: Type.Integer({ minimum: 0 }) }),
        ClosedObject({ priority: Type.Integer({ minimum: 0 }), exchange: Type.String() }),
        ClosedObject({ text: Type.String(), parts: Type.Array(Type.String()) }),
        ClosedObject({ nameserver: Type.String() }),
        ClosedObject({ target: Type.String() }),
        ClosedObject({
          primaryNameserver: Type.String(),
          hostmaster: Type.String(),
          serial: Type.Integer(),
          refresh: Type.Integer(),
          retry: Type.Integer(),
          expire: Type.Integer(),
          minimumTtl: Type.Integer(),
        }),
      ]),
      {
        description:
          'Matching records; shape depends on the record type. A/AAAA: {address, ttl} (ttl in seconds, counting down while cached). MX: {priority, exchange}, lowest priority first. TXT: {text, parts} (the character-strings joined, and as sent). NS: {nameserver}. CNAME: {target}. SOA: {primaryNameserver, hostmaster, serial, refresh, retry, expire, minimumTtl}. Empty when found is false.',
      },
    ),
    found: Type.Boolean({
      description: 'False when the name has no record of this type, or does not exist at all (NXDOMAIN); records is then empty.',
    }),
    status: StringEnum(['found', 'nodata', 'nxdomain'], {
      description: 'Additive: why found is false: nodata (the name exists, without records of this type) or nxdomain (no such name).',
    }),
    cached: Type.Boolean({ description: 'Additive: true when the answer was served from the cache.' }),
  },
  {
    description:
      'Answers may come from cache while fresh: A and AAAA for their TTL (at most one hour), other types for 60 s, negative answers for 30 s.',
    examples: [
      {
        hostname: 'example.com',
        recordType: 'MX',
        records: [{ priority: 10, exchange: 'mail.example.com' }],
        found: true,
        status: 'found',
        cached: false,
      },
    ],
  },
);
export type DnsLookupOutput = Static<typeof DnsLookupOutput>;

/** A record as the answer lists it: its shape follows the record type. */
export type LookupRecord = DnsLookupOutput['records'][number];

/** `found`, or why not: NXDOMAIN (no such name) or no data (the name has no record of this type). */
export type LookupStatus = DnsLookupOutput['status'];

/**
 * Single-label names are refused except for NS and SOA (a TLD's delegation is public).
 *
 * Suffixes of names that exist only inside private networks: RFC 6761/6762/8375 special-use names
 * (`localhost`, `local`, `home.arpa`), ICANN's private-use `internal`, the never-delegated names
 * networks use internally (`lan`, `home`, `corp`, `intranet`, `private`, `localdomain`), and all
 * of `arpa`, whose reverse zones of private ranges map internal hosts.
 */
export const INTERNAL_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'arpa',
  'lan',
  'home',
  'corp',
  'intranet',
  'private',
  'localdomain',
] as const;

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const MAX_NAME_LENGTH = 253;

function refuse(hostname: string, why: string): ToolError {
  return new ToolError('target_not_allowed', `Target not allowed: ${hostname} ${why}.`, { reason: 'internal_name' });
}

/**
 * The name to query: lower case, ASCII (punycode for IDN), no trailing dot. Throws 400 for what
 * is not a domain name and 422 `target_not_allowed` (reason `internal_name`) for internal names.
 */
export function lookupName(hostname: string, recordType?: RecordType): string {
  if (typeof hostname !== 'string' || hostname.trim() === '') throw invalidField('/hostname', 'must be a domain name');
  const raw = hostname.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || /[/?#@\s]/.test(raw))
    throw invalidField('/hostname', 'must be a domain name without a scheme, path or port, e.g. example.com');
  const bare = raw.replace(/\.$/, '');
  if (isIP(bare) || isIP(bare.replace(/^\[|\]$/g, ''))) throw invalidField('/hostname', 'must be a domain name, not an IP address');
  const ascii = domainToASCII(bare);
  if (!ascii || ascii.length > MAX_NAME_LENGTH)
    throw invalidField('/hostname', `must be a valid domain name of at most ${MAX_NAME_LENGTH} characters`);
  const labels = ascii.split('.');
  if (!labels.every((l) => LABEL.test(l))) {
    throw invalidField(
      '/hostname',
      'must be a valid domain name: labels of 1 to 63 letters, digits, hyphens or underscores, separated by dots',
    );
  }
  // A top-level domain's own NS and SOA are public (`com`, `org`); any other record of a
  // single-label name only exists on a private network.
  if (labels.length === 1 && recordType !== 'NS' && recordType !== 'SOA') {
    throw refuse(bare, `is a single-label name; for ${recordType ?? 'this record type'} it only resolves inside a private network`);
  }
  const suffix = INTERNAL_SUFFIXES.find((s) => ascii === s || ascii.endsWith(`.${s}`));
  if (suffix) throw refuse(bare, `is under .${suffix}, a name space used only inside private networks`);
  return ascii;
}

export function precheck(input: DnsLookupInput): void {
  lookupName(input.hostname, input.recordType);
}

export const dnsLookup = defineTool<DnsLookupInput, DnsLookupOutput>()({
  name: 'dns-lookup',
  group: 'network',
  cost: 1,
  pool: 'network',
  schemas: { input: DnsLookupInput, output: DnsLookupOutput },
  timeoutMs: 15_000,
  // Internal names (single-label, .local, .internal ...) are refused before any query.
  failures: ['target_not_allowed', 'upstream_error'],
  precheck,
});
