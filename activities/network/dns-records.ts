//! dns-lookup's output records (one readable shape per record type) and how long an answer may
//! be served from cache. Pure: the resolver's answer in, JSON out.
import type { LookupRecord, LookupStatus } from '../../domain/tools/dns-lookup.js';
import type { DnsAnswer, RecordMap, RecordType } from '../../lib/resolver.js';

/**
 * Cache lifetimes. Node's resolver reports TTLs for A and AAAA only; for the other types an answer
 * is kept a short fixed time, so a changed MX or TXT shows within a minute.
 */
export const CACHE_RULES = {
  /** Upper bound for A/AAAA, whatever TTL the zone sets: a stale address is worse than a query. */
  maxTtlSeconds: 3600,
  /** MX, TXT, NS, CNAME and SOA (no TTL available). */
  untypedTtlSeconds: 60,
  /** NXDOMAIN and no-data answers (RFC 2308 caching needs the SOA, which node does not return). */
  negativeTtlSeconds: 30,
} as const;

type Shapers = { [T in RecordType]: (record: RecordMap[T]) => LookupRecord };

const SHAPE: Shapers = {
  A: (r) => ({ address: r.address, ttl: r.ttl }),
  AAAA: (r) => ({ address: r.address, ttl: r.ttl }),
  MX: (r) => ({ priority: r.priority, exchange: r.exchange }),
  // One TXT record may hold several character-strings; most consumers (SPF, DKIM) read them joined.
  TXT: (parts) => ({ text: parts.join(''), parts: [...parts] }),
  NS: (name) => ({ nameserver: name }),
  CNAME: (name) => ({ target: name }),
  SOA: (r) => ({
    primaryNameserver: r.nsname,
    hostmaster: r.hostmaster,
    serial: r.serial,
    refresh: r.refresh,
    retry: r.retry,
    expire: r.expire,
    minimumTtl: r.minttl,
  }),
};

/** Stable order, so the same zone always gives the same answer (MX by priority, others by text). */
function compare(a: LookupRecord, b: LookupRecord): number {
  if ('priority' in a && 'priority' in b) return a.priority - b.priority || a.exchange.localeCompare(b.exchange);
  return JSON.stringify(a).localeCompare(JSON.stringify(b));
}

export function shapeRecords<T extends RecordType>(
  type: T,
  answer: DnsAnswer<RecordMap[T]>,
): { status: LookupStatus; records: LookupRecord[] } {
  if (!answer.found) return { status: answer.status, records: [] };
  const shape = SHAPE[type] as (r: RecordMap[T]) => LookupRecord;
  return { status: 'found', records: answer.records.map(shape).sort(compare) };
}

/** Seconds an answer may be served from cache (0: not at all). */
export function cacheSeconds(type: RecordType, status: LookupStatus, records: readonly LookupRecord[]): number {
  if (status !== 'found') return CACHE_RULES.negativeTtlSeconds;
  if (type === 'A' || type === 'AAAA') {
    const ttls = records.map((r) => (r as { ttl: number }).ttl);
    return Math.min(CACHE_RULES.maxTtlSeconds, ...ttls);
  }
  return CACHE_RULES.untypedTtlSeconds;
}

/** A cached answer as served later: address TTLs count down, as a caching resolver's do. */
export function agedRecords(records: readonly LookupRecord[], remainingSeconds: number): LookupRecord[] {
  return records.map((r) => ('ttl' in r ? { ...r, ttl: Math.min(r.ttl, Math.max(0, Math.floor(remainingSeconds))) } : r));
}
