//! DNS through the service's own resolvers (`DNS_SERVERS`): addresses for the target guard and
//! typed records for the dns-lookup tool. Answers that say "no such name / no such record" are
//! results; resolvers that fail or stay silent are `DnsError`s, so callers can tell them apart.
import { Resolver } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from './config.js';

export const RECORD_TYPES = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface AddressRecord {
  address: string;
  /** Seconds the answer may be cached, as the authoritative server gave it. */
  ttl: number;
}
export interface MxRecord {
  exchange: string;
  priority: number;
}
export interface SoaRecord {
  nsname: string;
  hostmaster: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minttl: number;
}

/** Record shape per type. TXT records are their character-strings (one record may hold several). */
export interface RecordMap {
  A: AddressRecord;
  AAAA: AddressRecord;
  MX: MxRecord;
  TXT: string[];
  NS: string;
  CNAME: string;
  SOA: SoaRecord;
}

/** `nxdomain`: the name does not exist. `nodata`: it exists but has no record of the type asked. */
export type NotFound = 'nxdomain' | 'nodata';

export type DnsAnswer<R> = { found: true; records: R[] } | { found: false; status: NotFound; records: [] };

export interface ResolvedAddress extends AddressRecord {
  family: 4 | 6;
}

export type LookupAnswer = { found: true; addresses: ResolvedAddress[] } | { found: false; status: NotFound; addresses: [] };

/** Why a resolver gave no usable answer (as opposed to a negative one). */
export type DnsFailure = 'servfail' | 'refused' | 'timeout' | 'unreachable' | 'bad_name' | 'bad_response' | 'error';

export class DnsError extends Error {
  override readonly name = 'DnsError';
  constructor(
    readonly kind: DnsFailure,
    readonly hostname: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface ResolverOptions {
  /**
   * Resolvers to ask, each `ip`, `ip:port`, `[v6]` or `[v6]:port` (`DNS_SERVERS`). Empty means the
   * system's (from /etc/resolv.conf). Tests point this at the local DNS fixture.
   */
  servers: string[];
  /**
   * Deadline for one lookup, milliseconds, over all servers and retries.
   * @default 5000. Lower it only where a slow resolver should fail a call early.
   */
  timeoutMs?: number;
}

export interface DnsResolver {
  /** Every A and AAAA address of `hostname`, A first, with TTLs. Both queries run in parallel. */
  lookup(hostname: string): Promise<LookupAnswer>;
  /** Records of one type. NXDOMAIN and no-data are `found: false`; failures throw `DnsError`. */
  resolve<T extends RecordType>(hostname: string, type: T): Promise<DnsAnswer<RecordMap[T]>>;
  /** The servers in use, as node reports them. */
  servers(): string[];
}

/**
 * Checks one `DNS_SERVERS` entry and returns it in the form `Resolver#setServers` takes.
 * Throws `ConfigError` on anything else, so a typo stops the process at start, not at first use.
 */
export function parseDnsServer(entry: string): string {
  const raw = entry.trim();
  const bad = (why: string) => new ConfigError(`DNS_SERVERS entry "${entry}" ${why}`);
  let host: string;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
  if (bracketed) {
    [, host, port] = bracketed as unknown as [string, string, string | undefined];
    if (!isIPv6(host)) throw bad('is not an IPv6 address in brackets');
  } else if (isIPv6(raw)) {
    host = raw;
  } else {
    const v4 = /^([^:]+)(?::(\d+))?$/.exec(raw);
    if (!v4 || !isIPv4(v4[1]!)) throw bad('must be ip, ip:port, [ipv6] or [ipv6]:port');
    host = v4[1]!;
    port = v4[2];
  }
  if (host.includes('%')) throw bad('must not carry an IPv6 zone');
  if (port !== undefined) {
    const n = Number(port);
    if (!Number.isInteger(n) || n < 1 || n > 65535 || !/^\d{1,5}$/.test(port)) throw bad('has a port outside 1-65535');
    return isIPv6(host) ? `[${host}]:${n}` : `${host}:${n}`;
  }
  return isIPv6(host) ? `[${host}]` : host;
}

/** c-ares error codes -> negative answer or failure kind. Exported for tests. */
export function classifyDnsError(code: unknown): NotFound | DnsFailure {
  switch (code) {
    case 'ENOTFOUND':
      return 'nxdomain';
    case 'ENODATA':
      return 'nodata';
    case 'ESERVFAIL':
      return 'servfail';
    case 'EREFUSED':
      return 'refused';
    case 'ETIMEOUT':
    case 'ECANCELLED':
      return 'timeout';
    case 'ECONNREFUSED':
      return 'unreachable';
    case 'EBADNAME':
      return 'bad_name';
    case 'EFORMERR':
    case 'EBADRESP':
    case 'ENOTIMP':
    case 'EBADQUERY':
    case 'EBADFAMILY':
      return 'bad_response';
    default:
      return 'error';
  }
}

const FAILURE_TEXT: Record<DnsFailure, string> = {
  servfail: 'the DNS server failed to answer (SERVFAIL)',
  refused: 'the DNS server refused the query',
  timeout: 'the DNS query timed out',
  unreachable: 'the DNS server could not be reached',
  bad_name: 'the name is not a valid DNS name',
  bad_response: 'the DNS server sent an unusable answer',
  error: 'the DNS query failed',
};

function failure(kind: DnsFailure, hostname: string, cause?: unknown): DnsError {
  return new DnsError(kind, hostname, `Could not resolve ${hostname}: ${FAILURE_TEXT[kind]}`, { cause });
}

/** Runs one query; negative answers come back as a status, failures as DnsError. */
async function query<R>(hostname: string, run: () => Promise<R[]>): Promise<DnsAnswer<R>> {
  try {
    const records = await run();
    return records.length ? { found: true, records } : { found: false, status: 'nodata', records: [] };
  } catch (err) {
    if (err instanceof DnsError) throw err;
    const kind = classifyDnsError((err as { code?: unknown }).code);
    if (kind === 'nxdomain' || kind === 'nodata') return { found: false, status: kind, records: [] };
    throw failure(kind, hostname, err);
  }
}

/** c-ares retries with a doubling timeout: with 2 tries, T + 2T per server. */
function caresTiming(timeoutMs: number): { timeout: number; tries: number } {
  return { timeout: Math.max(50, Math.floor(timeoutMs / 3)), tries: 2 };
}

export function createResolver(options: ResolverOptions): DnsResolver {
  const timeoutMs = options.timeoutMs ?? 5000;
  const resolver = new Resolver(caresTiming(timeoutMs));
  const servers = options.servers.map(parseDnsServer);
  if (servers.length) resolver.setServers(servers);

  // c-ares' own timing is only approximate across several servers; this is the hard bound.
  function withDeadline<R>(hostname: string, work: Promise<R>): Promise<R> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(failure('timeout', hostname)), timeoutMs);
      timer.unref?.();
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  }

  const runners: { [T in RecordType]: (h: string) => Promise<RecordMap[T][]> } = {
    A: (h) => resolver.resolve4(h, { ttl: true }),
    AAAA: (h) => resolver.resolve6(h, { ttl: true }),
    // Node 22 and later add a `type` to MX and SOA answers (on SOA, undefined): the records are
    // taken field by field, so an answer keeps its documented shape on any Node.
    MX: async (h) => (await resolver.resolveMx(h)).map(({ exchange, priority }) => ({ exchange, priority })),
    TXT: (h) => resolver.resolveTxt(h),
    NS: (h) => resolver.resolveNs(h),
    CNAME: (h) => resolver.resolveCname(h),
    SOA: async (h) => {
      const { nsname, hostmaster, serial, refresh, retry, expire, minttl } = await resolver.resolveSoa(h);
      return [{ nsname, hostmaster, serial, refresh, retry, expire, minttl }];
    },
  };

  async function resolve<T extends RecordType>(hostname: string, type: T): Promise<DnsAnswer<RecordMap[T]>> {
    const run = runners[type] as (h: string) => Promise<RecordMap[T][]>;
    if (!run) throw new TypeError(`unsupported record type ${String(type)}`);
    return withDeadline(
      hostname,
      query(hostname, () => run(hostname)),
    );
  }

  async function lookup(hostname: string): Promise<LookupAnswer> {
    const settled = await Promise.allSettled([resolve(hostname, 'A'), resolve(hostname, 'AAAA')]);
    const addresses: ResolvedAddress[] = [];
    const negatives: NotFound[] = [];
    let firstFailure: unknown;
    settled.forEach((result, i) => {
      const family = i === 0 ? 4 : 6;
      if (result.status === 'rejected') firstFailure ??= result.reason;
      else if (result.value.found) addresses.push(...result.value.records.map((r) => ({ ...r, family }) as const));
      else negatives.push(result.value.status);
    });
    // Addresses from one family are a usable answer even if the other query failed: the guard
    // checks exactly what it connects to, so a missing family cannot let anything through.
    if (addresses.length) return { found: true, addresses };
    if (firstFailure) throw firstFailure;
    return { found: false, status: negatives.includes('nodata') ? 'nodata' : 'nxdomain', addresses: [] };
  }

  return { lookup, resolve, servers: () => resolver.getServers() };
}
